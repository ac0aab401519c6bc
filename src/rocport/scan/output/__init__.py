"""Report formats, one module per format (bandit style)."""

FORMATS = ("text", "json", "sarif")
