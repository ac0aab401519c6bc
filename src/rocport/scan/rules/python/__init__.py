"""Python rules (using the ast module), one module per rule."""
