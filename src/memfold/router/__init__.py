"""memfold.router"""
