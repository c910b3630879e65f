"""Open every lesson and exercise notebook in JupyterLab in a real browser, as a learner would.

    python tools/check_in_browser.py --screenshots DIR

Needs Debian's Chromium, its driver and the Graphviz ``dot`` program (``apt install chromium
chromium-driver graphviz``; step 4 hides ``dot`` itself) and Selenium (``python -m pip install -e
".[browser]"``); nothing here downloads a browser.

1. Copies the repository's ``notebooks/``, ``exercises/`` (made afresh from ``solutions/``,
   so blank whatever this clone holds) and ``src/`` into a temporary folder (nothing the
   browser does can change the repository's files) and starts JupyterLab there, in its own
   process on a free port, with fresh settings, data and runtime folders: the notebooks are
   untrusted, as in a fresh clone. The kernel imports this copy's engine.
2. Starts headless Chromium and, for every lesson:
   - **untrusted, before anything runs**: every stored drawing and plot shows as an image
     (the PNG stored beside each SVG), no drawing shows as its text form, no output scrolls
     sideways; in lesson 02, the stored stepper says that running the cell brings it to life;
   - **trusted, before anything runs** (signed as ``jupyter trust`` signs it, then opened
     again): the pictures still show and no output is a dead widget (each widget shows its
     text form);
   - **after Run All** (the stored outputs cleared from the Edit menu, then Run All from the
     Run menu): every code cell ran, and no cell shows an error but those tagged
     ``raises-exception``, which must;
   - in lesson 02, clicks the backward stepper to the end, one step back, reset, and
     forward, checking its label and which node is highlighted at each step (the node
     named by the label: the seed and the root's rule both highlight the root).
3. For every exercise notebook, blank: Run All stops at its first check cell, which shows
   the course's short message (the exercise is not started), not a long traceback.
   After each lesson and each exercise notebook, every kernel is shut down, so that no more
   than one runs at a time (a lesson's kernel holds 100 to 500 MB once it has run).
   A notebook is opened by loading JupyterLab's page the first time, then as the file browser
   opens one, read afresh from disk, every document open before closed first; loading the
   page again for each took 3 of the 4 seconds an opening takes.
4. Starts a second JupyterLab whose kernel finds no Graphviz ``dot`` program, and runs
   lesson 01 there: every drawing shows its values listed as text under the install hint, no error.
5. Saves screenshots in DIR, stops the browser and JupyterLab (by its process id, also
   when a check fails), and exits 0, or 1 with a message saying what failed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import nbtools  # beside this script: the exercise generator and what a check cell is
from tinyad.course.viz.drawing import INSTALL_HINT  # what a drawing says where dot is missing
from tinyad.course.viz.stepper import STORED_TEXT  # what a stepper shows before its cell runs

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
WITHOUT_DOT = "01_value"  # the lesson opened where the Graphviz dot program is missing
GRAPHVIZ_PROGRAMS = ("dot", "neato", "twopi", "circo", "fdp", "sfdp", "osage", "patchwork")
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1000",
]
# JupyterLab settings for the check: no news or update pop-ups over the page, and every
# cell kept in the page (not only those scrolled into view) so all outputs can be read.
SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}
STEP = re.compile(r"step (\d+) of (\d+): (.*)")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
DEAD_WIDGET_WORDS = ("Error displaying widget", "Loading widget", "model not found")
SHORT_MESSAGE_LINES = 12  # a blank's or a failed check's message fits in this many lines


class CheckFailed(Exception):
    """A check did not hold: the message says which and what was seen."""


@dataclass
class Lab:
    """A running JupyterLab: its process, the address of a notebook (``{}``: its path under
    the course), and the environment its kernels get (its data folder holds the notary's secret)."""

    server: subprocess.Popen
    url: str
    env: dict
    api: str  # the address of its REST API (``{}``: the path under ``/api/``), token included


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screenshots", type=Path, required=True, help="folder for the screenshots")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds to wait for one notebook to run")
    parser.add_argument("--lessons", nargs="*", metavar="NN", help="only these lessons and exercises (default: all)")
    args = parser.parse_args(argv)
    for program in (CHROMIUM, CHROMEDRIVER):
        if not Path(program).exists():
            print(f"FAILED: {program} not found: apt install chromium chromium-driver", file=sys.stderr)
            return 1
    if dot_program() is None:  # else lesson 02's stepper fails later, highlighting no node of no drawing
        print("FAILED: the Graphviz dot program is not on the PATH: apt install graphviz (the lessons' drawings "
              "need it; the check hides it itself where it opens lesson 01 without it)", file=sys.stderr)
        return 1
    try:
        import selenium  # noqa: F401
    except ImportError:
        print('FAILED: Selenium is not installed: python -m pip install -e ".[browser]"', file=sys.stderr)
        return 1
    lessons = [name for name in LESSONS if not args.lessons or name[:2] in {n.zfill(2) for n in args.lessons}]
    args.screenshots.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="tinyad-browser-") as scratch:
            check_all(Path(scratch), args.screenshots, args.timeout, lessons)
    except Exception as failure:  # a check, or the browser or JupyterLab itself
        if not isinstance(failure, CheckFailed):
            traceback.print_exc()
        print(f"FAILED: {failure if isinstance(failure, CheckFailed) else repr(failure)}", file=sys.stderr)
        print(f"screenshots so far: {args.screenshots}", file=sys.stderr)
        return 1
    print(f"browser check passed in {time.monotonic() - started:.0f} s; screenshots in {args.screenshots}")
    return 0


def check_all(scratch: Path, shots: Path, timeout: float, lessons: list[str]) -> None:
    """Start JupyterLab and the browser, check every lesson and exercise, stop both whatever happens."""
    course = scratch / "course"
    for folder in ("notebooks", "src"):
        shutil.copytree(ROOT / folder, course / folder,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    (course / "exercises").mkdir()
    for name in lessons:
        solution = ROOT / "solutions" / f"{name}.ipynb"
        nbtools.write(nbtools.make_exercise(nbtools.read(solution), solution.name),
                      course / "exercises" / solution.name)
    browser = None
    try:
        browser = start_browser(scratch)
        with running_lab(course, scratch / "lab", os.environ.get("PATH", "")) as lab:
            for name in lessons:
                check_lesson(browser, lab, course / "notebooks" / f"{name}.ipynb", shots, timeout)
                shut_down_kernels(lab)
            for name in lessons:
                check_exercise(browser, lab, course / "exercises" / f"{name}.ipynb", shots, timeout)
                shut_down_kernels(lab)
        if WITHOUT_DOT in lessons:
            with running_lab(course, scratch / "lab-without-dot", path_without_graphviz()) as lab:
                check_without_dot(browser, lab, course / "notebooks" / f"{WITHOUT_DOT}.ipynb", shots, timeout)
    finally:
        if browser is not None:
            browser.quit()


def dot_program() -> str | None:
    """Where the Graphviz dot program is on the PATH (the kernels' PATH), or None."""
    return shutil.which("dot")


def path_without_graphviz() -> str:
    """PATH with every folder that holds a Graphviz program left out, the Python's own first."""
    folders = [str(Path(sys.executable).parent)] + os.environ.get("PATH", "").split(os.pathsep)
    kept = [f for f in folders if f and not any((Path(f) / p).exists() for p in GRAPHVIZ_PROGRAMS)]
    return os.pathsep.join(dict.fromkeys(kept))


# -- JupyterLab ------------------------------------------------------------------


@contextlib.contextmanager
def running_lab(course: Path, home: Path, path: str) -> Iterator[Lab]:
    """JupyterLab serving ``course`` on a free port, in its own process group, with its
    settings and data in ``home`` and ``path`` as its kernels' PATH; stopped on leaving."""
    env = dict(os.environ, PATH=path)
    for name, folder in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),  # a fresh notary: every notebook is untrusted
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("JUPYTERLAB_SETTINGS_DIR", "settings"),
        ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
    ]:
        env[name] = str(home / folder)
        (home / folder).mkdir(parents=True)
    for name, values in SETTINGS.items():
        settings = home / "settings" / name
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps(values), encoding="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(course / "src"), env.get("PYTHONPATH")]))
    port, token = free_port(), "tinyad-check"
    log_path = home / "jupyterlab.log"
    with open(log_path, "w", encoding="utf-8") as log:
        server = subprocess.Popen(
            [
                sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
                f"--ServerApp.root_dir={course}", f"--IdentityProvider.token={token}",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: open_notebook runs its commands
            ] + (["--allow-root"] if os.geteuid() == 0 else []),  # CI runs as root
            cwd=course, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            try:
                wait_for(lambda: server.poll() is not None or server_answers(f"{url}/api/status?token={token}"), 60,
                         "JupyterLab to start")
                if server.poll() is not None:
                    raise CheckFailed(f"JupyterLab exited with code {server.returncode}")
            except CheckFailed:
                raise CheckFailed(f"JupyterLab did not start; its log:\n{log_path.read_text(encoding='utf-8')[-3000:]}")
            yield Lab(server, f"{url}/lab/tree/{{}}?token={token}&reset", env, f"{url}/api/{{}}?token={token}")
        finally:
            stop(server)


def shut_down_kernels(lab: Lab) -> None:
    """End every notebook's session and its kernel, as File > Shut Down All Kernels does.

    Opening the next notebook leaves the last one's kernel running, and a lesson's kernel holds
    100 to 500 MB once it has run: twenty of them would take the memory a later one needs."""
    with urllib.request.urlopen(lab.api.format("sessions"), timeout=10) as answer:
        sessions = json.load(answer)
    for session in sessions:
        ending = urllib.request.Request(lab.api.format(f"sessions/{session['id']}"), method="DELETE")
        try:
            with urllib.request.urlopen(ending, timeout=30):
                pass
        except urllib.error.HTTPError as refused:
            if refused.code != 404:  # 404: the session ended between the list and now
                raise CheckFailed(f"JupyterLab would not shut down the kernel of {session.get('path', session['id'])}: "
                                  f"HTTP {refused.code} {refused.reason}") from None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_answers(address: str) -> bool:
    try:
        with urllib.request.urlopen(address, timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


def stop(server: subprocess.Popen) -> None:
    """Stop JupyterLab and its kernels: its process group, named by its process id."""
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)


# -- the browser -----------------------------------------------------------------


def start_browser(scratch: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS + [f"--user-data-dir={scratch / 'chromium'}"]:
        options.add_argument(flag)
    browser = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    browser.set_page_load_timeout(60)
    browser.set_script_timeout(30)
    return browser


def wait_for(condition: Callable[[], Any], seconds: float, what: str) -> Any:
    """Poll ``condition`` until it returns something true; fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise CheckFailed(f"gave up after {seconds:.0f} s waiting for {what}")
        time.sleep(0.25)


def js(browser: Any, script: str, *args: Any) -> Any:
    return browser.execute_script(script, *args)


# -- one lesson ------------------------------------------------------------------


def stored_images(path: Path) -> int:
    """How many outputs in the notebook file hold a picture (a drawing or a plot)."""
    notebook = nbtools.read(path)
    return sum(
        1
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if {"image/png", "image/svg+xml"} & set(output.get("data", {}))
    )


OUTPUTS_SCRIPT = """
const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
const outputs = [...panel.querySelectorAll('.jp-OutputArea-output')];
return outputs.map(o => ({
    mime: o.getAttribute('data-mime-type') || '',
    text: o.innerText.slice(0, 600),
    pngs: [...o.querySelectorAll('img')].filter(i => i.src.startsWith('data:image/png;base64,'))
        .map(i => [i.complete && i.naturalWidth > 0, i.clientWidth, i.naturalWidth]),
    images: o.querySelectorAll('img, svg').length,
    overflow: o.scrollWidth - o.clientWidth,
}));
"""

# Close everything in the main area, a document's changes discarded, then, once every document is
# gone (its widget disposed: opened again before, the same path would only be shown again, not
# read afresh), open a notebook (arguments[0], relative to JupyterLab's root) as the file browser
# does. arguments[1] is Selenium's callback: null once open, or what went wrong.
OPEN_SCRIPT = """
const [path, done] = arguments;
const app = window.jupyterapp;
const closed = [...app.shell.widgets('main')].map(widget => new Promise(resolve => {
    if (widget.context) {
        widget.context.model.dirty = false;
        widget.disposed.connect(() => resolve());
    } else {
        resolve();
    }
    widget.close();
}));
Promise.all(closed)
    .then(() => app.commands.execute('docmanager:open', {path, factory: 'Notebook'}))
    .then(() => done(null), error => done(String(error)));
"""

# Of the open notebook's code cells that hold outputs, how many JupyterLab takes as trusted, and
# how many there are.
TRUST_SCRIPT = """
const cells = [...window.jupyterapp.shell.currentWidget.content.model.cells];
const shown = cells.filter(cell => cell.type === 'code' && cell.outputs.length > 0);
return [shown.filter(cell => cell.trusted).length, shown.length];
"""

CELLS_SCRIPT = """
const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
return [...panel.querySelectorAll('.jp-CodeCell')].map(c => ({
    prompt: (c.querySelector('.jp-InputArea-prompt') || {innerText: ''}).innerText.trim(),
    outputs: [...c.querySelectorAll('.jp-OutputArea-output')].map(o => ({
        mime: o.getAttribute('data-mime-type') || '', text: o.innerText.slice(0, 2000)})),
}));
"""


def code_cells(path: Path) -> list:
    """The notebook file's code cells, in order."""
    return [cell for cell in nbtools.read(path).cells if cell.cell_type == "code"]


def open_notebook(browser: Any, lab: Lab, path: Path, course: Path) -> int:
    """Open ``path``, read afresh from disk, trust included; its code cells. The first time in
    ``lab``, by loading its page; then as the file browser opens a notebook, once every document
    open is closed, its changes discarded (a Run All leaves a notebook changed, and closing it
    would ask whether to save)."""
    name, relative = path.stem, path.relative_to(course).as_posix()
    page = lab.url.format(relative)
    if browser.current_url.split("/lab", 1)[0] != page.split("/lab", 1)[0]:
        browser.get(page)
    else:
        failed = browser.execute_async_script(OPEN_SCRIPT, relative)
        if failed:
            raise CheckFailed(f"JupyterLab did not open {relative}: {failed}")
    count = len(code_cells(path))
    script = "return document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell').length"
    wait_for(lambda: js(browser, script) == count, 60, f"{name} to open with its {count} code cells")
    wait_for(lambda: kernel_idle(browser), 60, f"{name}'s kernel to start")
    return count


def trust(lab: Lab, path: Path) -> None:
    """Trust a notebook as ``jupyter trust`` and "Trust Notebook" do: sign it in the notary of
    this JupyterLab (its secret and its database of signatures, in its data folder)."""
    from nbformat.sign import NotebookNotary

    notary = NotebookNotary(data_dir=lab.env["JUPYTER_DATA_DIR"])
    notary.sign(nbtools.read(path))


def run_all(browser: Any, name: str, count: int, timeout: float, stop_at_error: bool) -> list[dict]:
    """Run All from the Run menu, as a learner would; the cells when it has finished.

    JupyterLab's Run All stops at a cell that fails (unless it is tagged raises-exception):
    with ``stop_at_error`` the wait ends at the first error shown. Without it, a Run All that
    stopped early (an error, the kernel gone) ends the wait too, and the caller's checks name
    what is wrong; a Run All still going after ``timeout`` is named by the cell it is at.

    The outputs are cleared first: a lesson is stored with its outputs and numbered prompts
    (``[1]:`` ...), which read as a finished run before the first cell has started."""
    click_menu(browser, "Edit", "Clear Outputs of All Cells")
    wait_for(lambda: all(c["prompt"] in ("[ ]:", "") and not c["outputs"] for c in js(browser, CELLS_SCRIPT)),
             30, f"{name}'s outputs to clear")
    click_menu(browser, "Run", "Run All Cells")

    def finished() -> list[dict] | None:
        cells = js(browser, CELLS_SCRIPT)
        return cells if run_over(cells, count, stop_at_error) and kernel_idle(browser) else None

    try:
        return wait_for(finished, timeout, f"{name} to run all {count} code cells")
    except CheckFailed as failure:
        raise CheckFailed(f"{failure}: {run_state(browser)}") from None


def run_over(cells: list[dict], count: int, stop_at_error: bool) -> bool:
    """Run All has ended: every cell ran, or an error stopped it (no cell still queued or
    running, unless ``stop_at_error``: then the first error ends the wait)."""
    if all_ran([c["prompt"] for c in cells], count):
        return True
    errors = any(is_error(o) for c in cells for o in c["outputs"])
    return errors and (stop_at_error or not any(c["prompt"] == "[*]:" for c in cells))


def run_state(browser: Any) -> str:
    """Where a Run All is: the cells running or queued, the last that ran, the kernel's status."""
    cells = js(browser, CELLS_SCRIPT)
    prompts = [c["prompt"] for c in cells]
    waiting = [k + 1 for k, p in enumerate(prompts) if p == "[*]:"]
    ran = [k + 1 for k, p in enumerate(prompts) if re.fullmatch(r"\[\d+\]:", p)]
    status = js(browser, "return [...document.querySelectorAll('.jp-StatusBar-TextItem')]"
                         ".map(w => w.innerText.trim()).filter(t => t.includes('|')).join('; ')")
    dialog = js(browser, "const d = document.querySelector('.jp-Dialog'); return d ? d.innerText.trim() : ''")
    return (f"code cells running or queued {waiting or 'none'}, {len(ran)} of {len(prompts)} ran "
            f"(the last {ran[-1] if ran else 'none'}); the status bar says {status or 'nothing'!r}"
            + (f"; a dialog says {dialog[:300]!r}" if dialog else ""))


def check_lesson(browser: Any, lab: Lab, path: Path, shots: Path, timeout: float) -> None:
    name, course = path.stem, path.parent.parent
    count = open_notebook(browser, lab, path, course)

    # Untrusted, before anything runs: stored drawings and plots are PNG images.
    check_trusted(browser, name, False)
    expected = stored_images(path)
    try:
        wait_for(lambda: pngs_loaded(js(browser, OUTPUTS_SCRIPT)) >= expected, 30, f"{name}'s stored images to load")
    except CheckFailed:
        pass  # the count below says what is missing
    outputs = js(browser, OUTPUTS_SCRIPT)
    if pngs_loaded(outputs) != expected:
        raise CheckFailed(f"{name}: {expected} stored outputs hold a picture, {pngs_loaded(outputs)} show "
                          "as a PNG image before running (SVG alone is refused in an untrusted notebook)")
    if any("<tinyad drawing" in output["text"] for output in outputs):
        raise CheckFailed(f"{name}: a stored drawing shows as its text form, not as an image")
    check_no_sideways_scroll(name + " before running", outputs)
    screenshot_outputs(browser, shots / f"{name}-stored")
    if name == "02_backward":
        check_stored_stepper(browser, shots / f"{name}-stored-stepper.png")

    # Trusted, before anything runs: pictures still shown, no widget drawn dead.
    trust(lab, path)
    open_notebook(browser, lab, path, course)
    check_trusted(browser, name, True)
    outputs = wait_for(lambda: (lambda o: o if images_shown(o) >= expected else None)(js(browser, OUTPUTS_SCRIPT)),
                       30, f"{name}'s {expected} stored pictures to show once trusted")
    check_no_dead_widget(f"{name} trusted, before running", outputs)
    check_no_sideways_scroll(name + " trusted, before running", outputs)
    browser.save_screenshot(str(shots / f"{name}-trusted.png"))
    if name == "02_backward":
        check_stored_stepper(browser, shots / f"{name}-trusted-stepper.png")

    # Run All: every cell runs; only the cells tagged raises-exception show an error.
    cells = run_all(browser, name, count, timeout, stop_at_error=False)
    check_errors_only_where_tagged(name, cells, code_cells(path))
    outputs = js(browser, OUTPUTS_SCRIPT)
    check_no_sideways_scroll(name + " after running", outputs)
    screenshot_outputs(browser, shots / f"{name}-run")
    if name == "02_backward":
        check_stepper(browser, shots / name)
    print(f"{name}: {expected} stored images shown untrusted and trusted, no dead widget; "
          f"{count} cells ran, errors only where tagged")


def check_trusted(browser: Any, name: str, trusted: bool) -> None:
    """JupyterLab takes every code cell with outputs as trusted, or none of them."""
    taken, cells = js(browser, TRUST_SCRIPT)
    if cells and taken != (cells if trusted else 0):
        raise CheckFailed(f"{name}: opened {'after' if trusted else 'before'} it was trusted, {taken} of the "
                          f"{cells} code cells with outputs read as trusted")


def check_stored_stepper(browser: Any, shot: Path) -> None:
    """A stepper stored without its kernel shows its sentence, not a widget."""
    from selenium.webdriver.common.by import By

    stored = [e for e in browser.find_elements(By.CSS_SELECTOR, ".jp-OutputArea-output") if e.text == STORED_TEXT]
    if not stored:
        raise CheckFailed(f"the stored stepper does not say '{STORED_TEXT}'")
    js(browser, "arguments[0].scrollIntoView({block: 'center'})", stored[0])
    browser.save_screenshot(str(shot))


def check_no_dead_widget(where: str, outputs: list[dict]) -> None:
    """No output is a widget view (drawn dead without its kernel) or a widget's error text."""
    for output in outputs:
        if output["mime"] == WIDGET_VIEW or any(w in output["text"] for w in DEAD_WIDGET_WORDS):
            raise CheckFailed(f"{where}: an output is a widget with no kernel behind it "
                              f"({output['mime']}): {output['text'][:80]!r}")


def check_errors_only_where_tagged(name: str, cells: list[dict], sources: list) -> None:
    """After Run All: a cell tagged raises-exception shows its error, no other cell shows one."""
    for k, (cell, source) in enumerate(zip(cells, sources)):
        errors = [o["text"] for o in cell["outputs"] if is_error(o)]
        tagged = nbtools.RAISES_TAG in source.metadata.get("tags", [])
        if errors and not tagged:
            raise CheckFailed(f"{name}: code cell {k + 1} shows an error after Run All:\n{errors[0][:1000]}")
        if tagged and not errors:
            raise CheckFailed(f"{name}: code cell {k + 1} is tagged raises-exception but shows no error")


def check_exercise(browser: Any, lab: Lab, path: Path, shots: Path, timeout: float) -> None:
    """A blank exercise notebook: Run All stops at its first check cell, with a short message."""
    name, course = path.stem, path.parent.parent
    count = open_notebook(browser, lab, path, course)
    cells = run_all(browser, f"exercises/{name}", count, timeout, stop_at_error=True)
    sources = code_cells(path)
    first_check = next(k for k, cell in enumerate(sources) if nbtools.is_check_cell(cell))
    failing = [k for k, c in enumerate(cells) if any(is_error(o) for o in c["outputs"])]
    if failing[:1] != [first_check]:
        raise CheckFailed(f"exercises/{name}: Run All should stop at the first check cell (code cell "
                          f"{first_check + 1}); the cells showing an error are {[k + 1 for k in failing]}")
    (message,) = [o["text"] for o in cells[first_check]["outputs"] if is_error(o)][:1]
    check_short_message(f"exercises/{name}", message)
    from selenium.webdriver.common.by import By

    cell = browser.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell")[first_check]
    js(browser, "arguments[0].scrollIntoView({block: 'start'})", cell)
    time.sleep(0.3)
    browser.save_screenshot(str(shots / f"exercise-{name}-first-check.png"))
    print(f"exercises/{name}: Run All stops at the first check cell, saying {message.splitlines()[-1][:70]!r}")


def check_short_message(where: str, message: str) -> None:
    """What a blank shows: the course's few lines saying the exercise is not started,
    none of the grading machinery's source, no page of traceback."""
    lines = [line for line in message.splitlines() if line.strip()]
    if "not started" not in message:
        raise CheckFailed(f"{where}: the blank's message does not say the exercise is not started:\n{message[:600]}")
    if "grading.py" in message or len(lines) > SHORT_MESSAGE_LINES:
        raise CheckFailed(f"{where}: the blank's message is {len(lines)} lines with the machinery's frames, "
                          f"not the course's short message:\n{message[:1500]}")


def check_without_dot(browser: Any, lab: Lab, path: Path, shots: Path, timeout: float) -> None:
    """Where dot is missing: Run All gives no error, and drawings list their values under the hint."""
    name, course = path.stem, path.parent.parent
    count = open_notebook(browser, lab, path, course)
    cells = run_all(browser, name, count, timeout, stop_at_error=False)
    check_errors_only_where_tagged(f"{name} without dot", cells, code_cells(path))
    outputs = js(browser, OUTPUTS_SCRIPT)
    hints = [o for o in outputs if INSTALL_HINT.split(",")[0] in o["text"]]
    if not hints:
        raise CheckFailed(f"{name} without dot: no drawing shows the install hint")
    unlisted = [o for o in hints if "made by" not in o["text"]]  # the table's header: value, data, grad, made by
    if unlisted:
        raise CheckFailed(f"{name} without dot: {len(unlisted)} of {len(hints)} drawings show the hint but no "
                          "table of their values")
    check_no_sideways_scroll(f"{name} without dot", outputs)
    from selenium.webdriver.common.by import By

    first = [e for e in browser.find_elements(By.CSS_SELECTOR, ".jp-OutputArea-output")
             if INSTALL_HINT.split(",")[0] in e.text][0]
    js(browser, "arguments[0].scrollIntoView({block: 'start'})", first)
    time.sleep(0.3)
    browser.save_screenshot(str(shots / f"{name}-without-dot-run.png"))
    print(f"{name} without dot: {count} cells ran, {len(hints)} drawings list their values under the hint")


def is_error(output: dict) -> bool:
    """An error output: JupyterLab shows it on stderr, a traceback or ``SomeError: ...``, or
    the course's own errors, which show their message alone (``CheckFailed: ...``, ``NotStarted: ...``)."""
    return output["mime"] == "application/vnd.jupyter.stderr" and bool(
        "Traceback" in output["text"]
        or re.search(r"^\w*(Error|Exception)\b|^(CheckFailed|NotStarted): ", output["text"], re.M)
    )


def images_shown(outputs: list[dict]) -> int:
    """How many outputs show a picture (PNG or, once trusted, SVG)."""
    return sum(1 for output in outputs if output["images"])


def pngs_loaded(outputs: list[dict]) -> int:
    """How many PNG images the outputs show, each loaded and decoded."""
    return sum(1 for output in outputs for ok, _, _ in output["pngs"] if ok)


def check_no_sideways_scroll(where: str, outputs: list[dict]) -> None:
    for output in outputs:
        if output["overflow"] > 1:
            raise CheckFailed(f"{where}: an output is {output['overflow']} px wider than the notebook and scrolls "
                              f"sideways: {output['text'][:80]!r}")


def kernel_idle(browser: Any) -> bool:
    """The status bar says the kernel is idle (not connecting, starting or busy)."""
    return bool(js(browser, "return [...document.querySelectorAll('.jp-StatusBar-TextItem')]"
                            ".some(w => / \\| Idle$/.test(w.innerText.trim()));"))


def all_ran(prompts: list[str], code_cells: int) -> bool:
    """Every code cell shows an execution count (``[12]:``), none is queued or running (``[*]:``)."""
    return len(prompts) == code_cells and all(re.fullmatch(r"\[\d+\]:", p) for p in prompts)


def click_menu(browser: Any, menu: str, item: str) -> None:
    from selenium.webdriver.common.by import By

    browser.find_element(By.XPATH, f"//li[contains(@class,'lm-MenuBar-item')][.//div[text()='{menu}']]").click()
    entry = wait_for(lambda: browser.find_elements(
        By.XPATH, "//li[contains(@class,'lm-Menu-item')]"
                  f"[.//div[contains(@class,'lm-Menu-itemLabel')][text()='{item}']]"),
        10, f"the menu item {menu} > {item}")
    entry[0].click()


def screenshot_outputs(browser: Any, prefix: Path) -> None:
    """The whole window at the first image, and each image output on its own."""
    from selenium.webdriver.common.by import By

    images = browser.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output img")
    if images:
        js(browser, "arguments[0].scrollIntoView({block: 'start'})", images[0])
        time.sleep(0.3)
    browser.save_screenshot(f"{prefix}.png")
    for k, image in enumerate(images, start=1):
        js(browser, "arguments[0].scrollIntoView({block: 'start'})", image)
        image.screenshot(f"{prefix}-image-{k}.png")


# -- lesson 02's stepper ------------------------------------------------------------

STEPPER_SCRIPT = """
const box = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .widget-vbox')]
    .find(b => [...b.querySelectorAll('button')].map(x => x.innerText.trim()).join(',') === 'reset,previous,next');
if (!box) return null;
const buttons = Object.fromEntries([...box.querySelectorAll('button')].map(x => [x.innerText.trim(), x.disabled]));
const label = box.querySelector('.widget-label').innerText;
const html = box.querySelector('.widget-html');
const gold = [...box.querySelectorAll('svg g.node')].filter(g => {
    const outline = g.querySelector('polygon, ellipse');
    return outline && outline.getAttribute('fill') === 'gold';
});
return {label, buttons, overflow: html.scrollWidth - html.clientWidth,
        highlighted: gold.map(g => [g.querySelector('title').textContent,
                                    [...g.querySelectorAll('text')].map(t => t.textContent)])};
"""


def stepper_state(browser: Any) -> dict:
    state = wait_for(lambda: js(browser, STEPPER_SCRIPT), 30, "the backward stepper to show")
    match = STEP.fullmatch(state["label"])
    if match is None:
        raise CheckFailed(f"the stepper's label {state['label']!r} does not read 'step k of n: ...'")
    state["step"], state["last"], state["message"] = int(match[1]), int(match[2]), match[3]
    return state


def named_node(message: str) -> str:
    """The node a step's message is about: ``seed: L.grad = 1`` and ``L (+) added ...`` name L."""
    return message.removeprefix("seed: ").split(".grad")[0].split()[0]


def check_step(state: dict, step: int) -> tuple[str, str]:
    """The label says step ``step``, and exactly the node it names is highlighted."""
    if state["step"] != step:
        raise CheckFailed(f"the stepper shows {state['label']!r}, expected step {step}")
    if len(state["highlighted"]) != 1:
        raise CheckFailed(f"at {state['label']!r} the stepper highlights {len(state['highlighted'])} nodes, not 1")
    title, texts = state["highlighted"][0]
    name = named_node(state["message"])
    # A labelled node shows its label first; an unlabelled one is named by its position (v3).
    if name not in (texts[0], title):
        raise CheckFailed(f"at {state['label']!r} the stepper highlights {texts[0]!r} ({title}), not {name!r}")
    if state["overflow"] > 1:
        raise CheckFailed(f"at {state['label']!r} the stepper's picture scrolls sideways by {state['overflow']} px")
    return title, name


def settled(state: dict, step: int) -> dict | None:
    """``state`` if it shows ``step`` with the node its label names highlighted and its buttons
    set for that step (previous disabled at the first, next at the last), else None."""
    try:
        check_step(state, step)
    except CheckFailed:
        return None
    # The buttons are widgets of their own, set after the label and the picture: a check right
    # after the label changed could see them as they were for the step before.
    buttons = state["buttons"]
    if buttons.get("previous") != (step == 0) or buttons.get("next") != (step == state["last"]):
        return None
    return state


def check_stepper(browser: Any, prefix: Path) -> None:
    """Click to the end, one back, reset, one forward; check the label, the highlight and the
    buttons each time (``settled``).

    The seed (step 0) and the root's rule (step 1) both highlight the root."""
    from selenium.webdriver.common.by import By

    def click(button: str, expected_step: int) -> dict:
        box = browser.find_element(By.XPATH, "//div[contains(@class,'widget-vbox')]"
                                             f"//button[normalize-space()='{button}']")
        js(browser, "arguments[0].scrollIntoView({block: 'center'})", box)
        box.click()
        # The label, the picture and the buttons are widgets updated one after another: wait for all.
        return wait_for(lambda: settled(stepper_state(browser), expected_step), 10,
                        f"the stepper to show step {expected_step} after '{button}', the node it names "
                        "highlighted, previous disabled only at step 0 and next only at the last")

    def shot(state: dict) -> None:
        box = browser.find_element(By.XPATH, "//div[contains(@class,'widget-vbox')]"
                                             "[.//button[normalize-space()='reset']]")
        js(browser, "arguments[0].scrollIntoView({block: 'start'})", box)
        box.screenshot(f"{prefix}-stepper-step-{state['step']:02d}.png")

    state = stepper_state(browser)  # where the lesson's own cells left it
    check_step(state, state["step"])
    shot(state)
    last = state["last"]
    for step in range(state["step"] + 1, last + 1):
        state = click("next", step)
        if step == last // 2:
            shot(state)
    shot(state)
    click("previous", last - 1)
    state = click("reset", 0)
    root, _ = check_step(state, 0)
    shot(state)
    state = click("next", 1)
    if check_step(state, 1)[0] != root:
        raise CheckFailed(f"step 1 (the root's rule) highlights {state['highlighted'][0][0]}, "
                          f"step 0 (the seed) {root}: not the same node")
    shot(state)
    print(f"02_backward: the stepper went to step {last}, back, reset and forward, highlighting the node "
          "each step names")


if __name__ == "__main__":
    sys.exit(main())
