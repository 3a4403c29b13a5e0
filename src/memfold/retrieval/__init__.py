"""memfold.retrieval"""
