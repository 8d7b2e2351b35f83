"""Front end: finding a function's source, checking it, and specialising it to core form."""
