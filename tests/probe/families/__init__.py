"""One module per probe family; each has cases(ctx) -> list of probelib.Case."""
