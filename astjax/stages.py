"""`jax.stages`: the types of the ahead-of-time stages, for programs that annotate with them
(`jax.stages.Wrapped`, `Traced`, `Lowered`, `Compiled`)."""
from .compiled import JitFunction as Wrapped  # noqa: F401
from .lowered import CompiledCall as Compiled, Lowered, Traced  # noqa: F401
