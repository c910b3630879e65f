"""The same as ``tinyad.course.data``, where the course keeps it; this name keeps working."""

from tinyad.course.data import *  # noqa: F401,F403
