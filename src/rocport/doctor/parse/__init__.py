"""Parsers for the files and tool outputs the doctor reads (each names its format's reference)."""
