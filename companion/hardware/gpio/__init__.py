"""gpio"""
