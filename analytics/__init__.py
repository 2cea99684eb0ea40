"""analytics"""
