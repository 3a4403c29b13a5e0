"""memfold.llm"""
