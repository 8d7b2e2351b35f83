"""A while loop's tape on XLA: a buffer of static capacity and the count of rows it holds.

XLA's shapes are static, a tape's length is the loop's trip count (a -1 in core form). Control
flow writes and reads tapes (control.py), transpose moves their axes (shape.py), and an
elementwise equation on tapes runs on their buffers (emit.py)."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Tape:
    """A while loop's tape: `buffer` holds rows 0..count-1 of its capacity."""
    buffer: object  # an emit.Value (emit imports this module)
    count: object   # an emit.Value: the int32 count of rows written

    @property
    def shape(self):
        return (-1,) + self.buffer.shape[1:]

    @property
    def dtype(self):
        return self.buffer.dtype

    @property
    def name(self):
        return self.buffer.name


@dataclass(frozen=True)
class MovedTape:
    """A tape with its trip axis moved off axis 0 (a batched tape, its lanes first): only
    moved back by another transpose, which gives the tape again."""
    tape: Tape
    permutation: tuple

    @property
    def shape(self):
        shape = self.tape.shape
        return tuple(shape[p] for p in self.permutation)

    @property
    def dtype(self):
        return self.tape.dtype

    @property
    def name(self):
        return self.tape.name


def transpose_tape(body, value, permutation):
    """transpose of a tape (or of a moved one): a moved tape, or a tape when the trip axis
    comes back to axis 0 (the buffer transposed, its count kept)."""
    tape, before = (value.tape, value.permutation) if isinstance(value, MovedTape) else \
        (value, tuple(range(len(value.shape))))
    composed = tuple(before[p] for p in permutation)
    if composed[0] != 0:
        return MovedTape(tape, composed)
    return Tape(body.transpose(tape.buffer, composed), tape.count)
