"""memfold.compaction"""
