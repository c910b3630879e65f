"""The scalar engine: one ``Value`` per number, and networks built from them."""

from tinyad.scalar.value import Value

__all__ = ["Value"]
