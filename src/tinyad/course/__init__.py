"""What only the course uses: the engine (``tinyad.graph``, ``tinyad.scalar``, ``tinyad.tensor``,
``tinyad.optim``, ``tinyad.gradcheck``) never imports it.

- ``tinyad.course.grading``: the helpers that the exercises' check cells call;
- ``tinyad.course.score_table``: the pytest plugin that ends ``pytest --nbval-lax exercises/``
  with a row per exercise;
- ``tinyad.course.viz``: the drawing of a graph, lesson 02's backward stepper, a progress bar;
- ``tinyad.course.data``: the small data sets the lessons train on, generated or shipped here.

``tinyad.grading``, ``tinyad.score_table``, ``tinyad.viz`` and ``tinyad.data`` name the same
modules' contents, for notebooks written before the course moved here.
"""
