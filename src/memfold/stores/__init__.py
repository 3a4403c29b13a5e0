"""memfold.stores"""
