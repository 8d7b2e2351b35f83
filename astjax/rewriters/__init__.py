"""Rewriters: source passes on the user's function (`source`) and transformations of core
form into core form (`ad`: forward and reverse mode; `batching`: vmap). They read the core and
write core form; they know nothing of the backend that will run their output."""
