"""tools/check_in_browser.py: the parts that decide pass or fail, without starting a browser.

CI runs the whole check (.ci/run); these tests pin what it reads from the page.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import check_in_browser as check  # noqa: E402  (tools/ is a folder of scripts, not a package)


def state(label: str, *highlighted: tuple[str, list[str]]) -> dict:
    """A stepper as the page shows it, read as stepper_state reads it."""
    step, last, message = check.STEP.fullmatch(label).groups()
    return {"label": label, "step": int(step), "last": int(last), "message": message,
            "highlighted": list(highlighted), "overflow": 0, "buttons": {}}


def test_the_node_a_step_names():
    assert check.named_node("seed: L.grad = 1") == "L"
    assert check.named_node("L (+) added 1 to u, 1 to v") == "L"
    assert check.named_node("x is a leaf: nothing to pass on, its grad 12 is final") == "x"
    assert check.named_node("v2 (*) added 4 to v0, 2 to v1") == "v2"


def test_a_step_passes_when_the_node_it_names_is_highlighted():
    assert check.check_step(state("step 0 of 7: seed: L.grad = 1",
                                  ("v6", ["L", "data 41", "grad 1"])), 0) == ("v6", "L")
    unlabelled = state("step 1 of 3: v2 (*) added 4 to v0, 2 to v1", ("v2", ["data 8", "grad 1"]))
    assert check.check_step(unlabelled, 1) == ("v2", "v2")


@pytest.mark.parametrize(
    "seen, step, complaint",
    [
        (state("step 1 of 7: L (+) added 1 to u, 1 to v", ("v5", ["u", "data 11", "grad 1"])), 1, "not 'L'"),
        (state("step 1 of 7: L (+) added 1 to u, 1 to v"), 1, "highlights 0 nodes"),
        (state("step 1 of 7: L (+) added 1 to u, 1 to v", ("v6", ["L"]), ("v5", ["u"])), 1, "highlights 2 nodes"),
        (state("step 2 of 7: u (+) added 1 to h, 1 to b", ("v5", ["u"])), 3, "expected step 3"),
    ],
)
def test_a_step_fails_with_what_was_seen(seen, step, complaint):
    with pytest.raises(check.CheckFailed, match=complaint):
        check.check_step(seen, step)
    assert check.settled(seen, step) is None


@pytest.mark.parametrize("step, previous, next_, ready", [
    (0, True, False, True), (3, False, False, True), (7, False, True, True),
    # The label and the picture already show the step, the buttons not yet (CI saw this after
    # 'reset': the previous button still enabled from step 7).
    (0, False, False, False), (7, False, False, False), (3, True, False, False),
])
def test_a_step_has_settled_only_once_its_buttons_are_set_for_it(step, previous, next_, ready):
    label = "step 0 of 7: seed: L.grad = 1" if step == 0 else f"step {step} of 7: L (+) added 1 to u, 1 to v"
    seen = state(label, ("v6", ["L"]))
    seen["buttons"] = {"previous": previous, "next": next_, "reset": False}
    assert (check.settled(seen, step) is seen) == ready


def test_a_picture_wider_than_the_stepper_fails():
    seen = state("step 0 of 7: seed: L.grad = 1", ("v6", ["L"]))
    seen["overflow"] = 240
    with pytest.raises(check.CheckFailed, match="scrolls sideways by 240 px"):
        check.check_step(seen, 0)


def test_outputs_that_scroll_sideways_fail():
    check.check_no_sideways_scroll("here", [{"overflow": 0, "text": "fine"}, {"overflow": 1, "text": "rounding"}])
    with pytest.raises(check.CheckFailed, match="300 px wider"):
        check.check_no_sideways_scroll("here", [{"overflow": 300, "text": "a wide drawing"}])


def test_errors_are_told_from_printed_words():
    traceback = "ZeroDivisionError                         Traceback (most recent call last)\n..."
    assert check.is_error({"mime": "application/vnd.jupyter.stderr", "text": traceback})
    assert check.is_error({"mime": "application/vnd.jupyter.stderr",
                           "text": "  Cell In[3]\nSyntaxError: invalid syntax"})
    assert not check.is_error({"mime": "application/vnd.jupyter.stdout", "text": "ValueError: as the lesson prints it"})
    assert not check.is_error({"mime": "application/vnd.jupyter.stderr", "text": "training: 100%"})
    # The course's own errors show their message alone, with no traceback.
    assert check.is_error({"mime": "application/vnd.jupyter.stderr", "text": "NotStarted: Exercise 1 is not started"})
    assert check.is_error({"mime": "application/vnd.jupyter.stderr", "text": "CheckFailed: the product\n  tried: ..."})


def test_every_code_cell_must_show_an_execution_count():
    assert check.all_ran(["[1]:", "[2]:", "[12]:"], 3)
    assert not check.all_ran(["[1]:", "[*]:", "[ ]:"], 3)
    assert not check.all_ran(["[1]:"], 3)


def shown_cell(prompt: str, error: str = "") -> dict:
    """A code cell as the page shows it, read as run_all reads it."""
    return {"prompt": prompt, "outputs": [{"mime": "application/vnd.jupyter.stderr", "text": error}] if error else []}


def test_run_all_has_ended_when_every_cell_ran_or_an_error_stopped_it():
    assert check.run_over([shown_cell("[1]:"), shown_cell("[2]:")], 2, stop_at_error=False)
    # An untagged error: JupyterLab stops and unqueues the rest; the wait ends, the check names it.
    assert check.run_over([shown_cell("[1]:", "AssertionError"), shown_cell("[ ]:")], 2, stop_at_error=False)
    # A tagged cell's error with the rest still queued: Run All goes on.
    assert not check.run_over([shown_cell("[1]:", "ValueError: no"), shown_cell("[*]:")], 2, stop_at_error=False)
    assert check.run_over([shown_cell("[1]:", "NotStarted: Exercise 1"), shown_cell("[*]:")], 2, stop_at_error=True)
    # Cleared and not yet started, or started and running.
    assert not check.run_over([shown_cell("[ ]:"), shown_cell("[ ]:")], 2, stop_at_error=False)
    assert not check.run_over([shown_cell("[1]:"), shown_cell("[*]:")], 2, stop_at_error=True)


def test_pictures_stored_in_a_notebook_are_counted(tmp_path):
    nb = nbformat.v4.new_notebook()
    png = nbformat.v4.new_output("display_data", {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"})
    svg_only = nbformat.v4.new_output("execute_result", {"image/svg+xml": "<svg/>", "text/plain": "x"},
                                      execution_count=2)
    text = nbformat.v4.new_output("stream", name="stdout", text="no picture\n")
    nb.cells = [nbformat.v4.new_code_cell("a", outputs=[png, text]), nbformat.v4.new_code_cell("b", outputs=[svg_only])]
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    assert check.stored_images(path) == 2  # the SVG-only one too: it must show as a PNG and cannot
    outputs = [{"pngs": [[True, 400, 400], [False, 0, 0]]}, {"pngs": []}]
    assert check.pngs_loaded(outputs) == 1


def test_it_opens_every_lesson_and_one_without_dot():
    assert check.LESSONS == sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert check.WITHOUT_DOT in check.LESSONS


def cell(source: str, *tags: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(source, metadata={"tags": list(tags)} if tags else {})


def shown(*texts: str) -> dict:
    """A code cell as the page shows it after running: its prompt and outputs."""
    return {"prompt": "[1]:", "outputs": [{"mime": "application/vnd.jupyter.stderr", "text": t} for t in texts]}


def test_after_run_all_only_tagged_cells_may_show_an_error():
    sources = [cell("1 / 0", "raises-exception"), cell("print(1)")]
    check.check_errors_only_where_tagged("n", [shown("ZeroDivisionError: division by zero"), shown()], sources)
    with pytest.raises(check.CheckFailed, match="code cell 2 shows an error"):
        check.check_errors_only_where_tagged("n", [shown("ZeroDivisionError: x"), shown("NameError: y")], sources)
    with pytest.raises(check.CheckFailed, match="code cell 1 is tagged raises-exception but shows no error"):
        check.check_errors_only_where_tagged("n", [shown(), shown()], sources)


def test_a_widget_drawn_without_its_kernel_fails():
    check.check_no_dead_widget("here", [{"mime": "text/plain", "text": check.STORED_TEXT}])
    with pytest.raises(check.CheckFailed, match="widget with no kernel"):
        check.check_no_dead_widget("here", [{"mime": check.WIDGET_VIEW, "text": ""}])
    with pytest.raises(check.CheckFailed, match="widget with no kernel"):
        check.check_no_dead_widget("here", [{"mime": "", "text": "Error displaying widget: model not found"}])


def test_a_blank_must_show_a_short_message():
    check.check_short_message("ex", "NotImplementedError: Exercise 1 is not started: in its answer cell, replace ...")
    with pytest.raises(check.CheckFailed, match="does not say the exercise is not started"):
        check.check_short_message("ex", "NotImplementedError: ")
    long = "\n".join(["Traceback (most recent call last)"] + [f"  line {k}" for k in range(30)]
                      + ["NotImplementedError: Exercise 1 is not started"])
    with pytest.raises(check.CheckFailed, match="32 lines"):
        check.check_short_message("ex", long)
    with pytest.raises(check.CheckFailed, match="machinery"):
        check.check_short_message("ex", 'File ".../tinyad/grading.py", line 3\nExercise 1 is not started')


def test_the_path_without_graphviz_keeps_python_and_drops_dot(tmp_path, monkeypatch):
    with_dot, without = tmp_path / "with", tmp_path / "without"
    with_dot.mkdir(), without.mkdir()
    (with_dot / "dot").touch()
    monkeypatch.setenv("PATH", os.pathsep.join([str(with_dot), str(without)]))
    folders = check.path_without_graphviz().split(os.pathsep)  # ";" on Windows, whose paths hold ":"
    assert str(with_dot) not in folders and str(without) in folders
    assert folders[0] == str(Path(sys.executable).parent)


def test_without_chromium_it_fails_saying_what_to_install(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(check, "CHROMIUM", str(tmp_path / "no-chromium"))
    monkeypatch.setattr(check, "CHROMEDRIVER", sys.executable)
    assert check.main(["--screenshots", str(tmp_path / "shots")]) == 1
    assert "apt install chromium chromium-driver" in capsys.readouterr().err


def test_without_dot_it_fails_saying_what_to_install(monkeypatch, tmp_path, capsys):
    # It failed at lesson 02, saying "the stepper highlights 0 nodes, not 1".
    monkeypatch.setattr(check, "CHROMIUM", sys.executable)
    monkeypatch.setattr(check, "CHROMEDRIVER", sys.executable)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert check.main(["--screenshots", str(tmp_path / "shots")]) == 1
    assert "dot program is not on the PATH: apt install graphviz" in capsys.readouterr().err


def test_without_selenium_it_fails_saying_what_to_install(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(check, "CHROMIUM", sys.executable)
    monkeypatch.setattr(check, "CHROMEDRIVER", sys.executable)
    monkeypatch.setattr(check, "dot_program", lambda: "/usr/bin/dot")  # whether or not it is here
    monkeypatch.setitem(sys.modules, "selenium", None)  # import selenium now fails
    assert check.main(["--screenshots", str(tmp_path / "shots")]) == 1
    assert 'pip install -e ".[browser]"' in capsys.readouterr().err


def test_an_unexpected_error_is_reported_and_fails(monkeypatch, tmp_path, capsys):
    def broken(*args):
        raise RuntimeError("chromedriver would not start")

    monkeypatch.setattr(check, "check_all", broken)
    # Whether or not chromium and Selenium are installed where the tests run:
    monkeypatch.setattr(check, "CHROMIUM", sys.executable)
    monkeypatch.setattr(check, "CHROMEDRIVER", sys.executable)
    monkeypatch.setattr(check, "dot_program", lambda: "/usr/bin/dot")
    monkeypatch.setitem(sys.modules, "selenium", types.ModuleType("selenium"))
    assert check.main(["--screenshots", str(tmp_path / "shots")]) == 1
    assert "FAILED: RuntimeError('chromedriver would not start')" in capsys.readouterr().err


def test_every_kernel_is_shut_down_between_notebooks():
    # Each notebook's kernel stayed alive while the next ran: twenty of them by the last exercise.
    import http.server
    import json
    import threading

    asked: list[tuple[str, str]] = []
    sessions = [{"id": "a1", "path": "notebooks/01_value.ipynb"}, {"id": "b2", "path": "notebooks/02_backward.ipynb"}]
    answers = {"a1": 404, "b2": 204}  # a1 ended between the list and its turn: nothing to do

    class Jupyter(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802  (the handler's names are http.server's)
            asked.append(("GET", self.path))
            body = json.dumps(sessions).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_DELETE(self):  # noqa: N802
            asked.append(("DELETE", self.path))
            self.send_response(answers[self.path.split("/")[-1].split("?")[0]])
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Jupyter)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        api = f"http://127.0.0.1:{server.server_port}/api/{{}}?token=t"
        lab = check.Lab(server=None, url="", env={}, api=api)
        check.shut_down_kernels(lab)
        assert asked == [("GET", "/api/sessions?token=t"), ("DELETE", "/api/sessions/a1?token=t"),
                         ("DELETE", "/api/sessions/b2?token=t")]
        answers["b2"] = 500  # any other refusal is named, not a traceback from urllib
        with pytest.raises(check.CheckFailed, match="kernel of notebooks/02_backward.ipynb: HTTP 500"):
            check.shut_down_kernels(lab)
    finally:
        server.shutdown()


@pytest.mark.parametrize("trusted, seen, passes", [
    (False, [0, 21], True), (False, [21, 21], False), (False, [3, 21], False),
    (True, [21, 21], True), (True, [0, 21], False), (True, [20, 21], False),
])
def test_a_notebook_reads_as_trusted_only_once_signed_and_then_in_every_cell(trusted, seen, passes):
    page = types.SimpleNamespace(execute_script=lambda script, *args: seen)
    if passes:
        check.check_trusted(page, "04_network", trusted)
    else:
        with pytest.raises(check.CheckFailed, match=f"{seen[0]} of the 21 code cells with outputs read as trusted"):
            check.check_trusted(page, "04_network", trusted)
