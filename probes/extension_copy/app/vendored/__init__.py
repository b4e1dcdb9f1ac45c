"""Packages the application ships inside its own tree."""
