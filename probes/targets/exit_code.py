"""Exits with status 3."""
import sys

sys.exit(3)
