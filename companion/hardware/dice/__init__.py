"""dice"""
