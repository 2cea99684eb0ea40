"""relay"""
