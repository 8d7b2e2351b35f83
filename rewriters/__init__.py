"""Source-to-source passes: each turns Python source (or core form) into new source."""
