"""The same as ``tinyad.course.viz``, where the course keeps it; this name keeps working."""

from tinyad.course.viz import BackwardStepper, draw, progress  # noqa: F401
