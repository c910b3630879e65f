"""Open lessons in JupyterLab in a real browser, as a learner with a fresh clone would.

    python tools/check_in_browser.py --screenshots DIR

Needs Debian's Chromium and its driver (``apt install chromium chromium-driver``) and
Selenium (``python -m pip install -e ".[browser]"``); nothing here downloads a browser.

1. Copies the repository's ``notebooks/`` and ``src/`` into a temporary folder (so
   nothing the browser does can change the repository's files) and starts JupyterLab
   there, in its own process on a free port, with fresh settings, data and runtime
   folders: the notebooks are untrusted, as in a fresh clone. The kernel imports this
   repository's engine.
2. Starts headless Chromium and, for lessons 01, 02 and 04:
   - before anything runs, checks that every stored drawing and plot shows as an
     image (the PNG stored beside each SVG), that no drawing shows as its text form,
     and that no output scrolls sideways; in lesson 02, that the stored stepper says
     that running the cell brings it to life;
   - runs all cells from the Run menu and checks that no cell shows an error;
   - in lesson 02, clicks the backward stepper to the end, one step back, reset, and
     forward, checking its label and which node is highlighted at each step (the node
     named by the label: the seed and the root's rule both highlight the root).
3. Saves screenshots in DIR, stops the browser and JupyterLab (by its process id,
   also when a check fails), and exits 0, or 1 with a message saying what failed.
"""

from __future__ import annotations

import argparse
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
import urllib.request
from pathlib import Path
from typing import Any, Callable

from tinyad.viz.stepper import STORED_TEXT  # what a stepper shows before its cell runs

ROOT = Path(__file__).resolve().parent.parent
LESSONS = ["01_value", "02_backward", "04_network"]
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


class CheckFailed(Exception):
    """A check did not hold: the message says which and what was seen."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screenshots", type=Path, required=True, help="folder for the screenshots")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds to wait for one notebook to run")
    args = parser.parse_args(argv)
    for program in (CHROMIUM, CHROMEDRIVER):
        if not Path(program).exists():
            print(f"FAILED: {program} not found: apt install chromium chromium-driver", file=sys.stderr)
            return 1
    try:
        import selenium  # noqa: F401
    except ImportError:
        print('FAILED: Selenium is not installed: python -m pip install -e ".[browser]"', file=sys.stderr)
        return 1
    args.screenshots.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="tinyad-browser-") as scratch:
            check_all(Path(scratch), args.screenshots, args.timeout)
    except Exception as failure:  # a check, or the browser or JupyterLab itself
        if not isinstance(failure, CheckFailed):
            traceback.print_exc()
        print(f"FAILED: {failure if isinstance(failure, CheckFailed) else repr(failure)}", file=sys.stderr)
        print(f"screenshots so far: {args.screenshots}", file=sys.stderr)
        return 1
    print(f"browser check passed in {time.monotonic() - started:.0f} s; screenshots in {args.screenshots}")
    return 0


def check_all(scratch: Path, shots: Path, timeout: float) -> None:
    """Start JupyterLab and the browser, check every lesson, stop both whatever happens."""
    course = scratch / "course"
    for folder in ("notebooks", "src"):
        shutil.copytree(ROOT / folder, course / folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    server, url = start_jupyterlab(course, scratch)
    try:
        browser = start_browser(scratch)
        try:
            for lesson in LESSONS:
                check_lesson(browser, url, course / "notebooks" / f"{lesson}.ipynb", shots, timeout)
        finally:
            browser.quit()
    finally:
        stop(server)


# -- JupyterLab ------------------------------------------------------------------


def start_jupyterlab(course: Path, scratch: Path) -> tuple[subprocess.Popen, str]:
    """JupyterLab serving ``course`` on a free port, its own process group; and its address."""
    env = dict(os.environ)
    for name, folder in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),  # a fresh notary: every notebook is untrusted
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("JUPYTERLAB_SETTINGS_DIR", "settings"),
        ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
    ]:
        env[name] = str(scratch / folder)
        (scratch / folder).mkdir()
    for name, values in SETTINGS.items():
        path = scratch / "settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(course / "src"), env.get("PYTHONPATH")]))
    port, token = free_port(), "tinyad-check"
    log = open(scratch / "jupyterlab.log", "w")
    server = subprocess.Popen(
        [
            sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
            f"--ServerApp.root_dir={course}", f"--IdentityProvider.token={token}",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ] + (["--allow-root"] if os.geteuid() == 0 else []),  # CI runs as root
        cwd=course, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: server.poll() is not None or server_answers(f"{url}/api/status?token={token}"), 60,
                 "JupyterLab to start")
        if server.poll() is not None:
            raise CheckFailed(f"JupyterLab exited with code {server.returncode}")
    except CheckFailed:
        stop(server)
        log.close()
        raise CheckFailed(f"JupyterLab did not start; its log:\n{(scratch / 'jupyterlab.log').read_text()[-3000:]}")
    return server, f"{url}/lab/tree/notebooks/{{}}?token={token}&reset"


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
    notebook = json.loads(path.read_text())
    return sum(
        1
        for cell in notebook["cells"]
        for output in cell.get("outputs", [])
        if {"image/png", "image/svg+xml"} & set(output.get("data", {}))
    )


OUTPUTS_SCRIPT = """
const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
const outputs = [...panel.querySelectorAll('.jp-OutputArea-output')];
return outputs.map(o => ({
    mime: o.getAttribute('data-mime-type') || '',
    text: o.innerText.slice(0, 300),
    pngs: [...o.querySelectorAll('img')].filter(i => i.src.startsWith('data:image/png;base64,'))
        .map(i => [i.complete && i.naturalWidth > 0, i.clientWidth, i.naturalWidth]),
    images: o.querySelectorAll('img, svg').length,
    overflow: o.scrollWidth - o.clientWidth,
}));
"""

PROMPTS_SCRIPT = """
const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
return [...panel.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')].map(p => p.innerText.trim());
"""


def check_lesson(browser: Any, url: str, path: Path, shots: Path, timeout: float) -> None:
    name = path.stem
    browser.get(url.format(path.name))
    code_cells = sum(cell["cell_type"] == "code" for cell in json.loads(path.read_text())["cells"])
    count = "return document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell').length"
    wait_for(lambda: js(browser, count) == code_cells, 60, f"{name} to open with its {code_cells} code cells")
    wait_for(lambda: kernel_idle(browser), 60, f"{name}'s kernel to start")

    # Before anything runs: stored drawings and plots are PNG images, nothing scrolls sideways.
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
    if name == "02_backward":  # a widget stored without its kernel shows its text form
        from selenium.webdriver.common.by import By

        stored = [e for e in browser.find_elements(By.CSS_SELECTOR, ".jp-OutputArea-output") if e.text == STORED_TEXT]
        if not stored:
            raise CheckFailed(f"{name}: the stored stepper does not say '{STORED_TEXT}'")
        js(browser, "arguments[0].scrollIntoView({block: 'center'})", stored[0])
        browser.save_screenshot(str(shots / f"{name}-stored-stepper.png"))

    # Run all cells from the menu, as a learner would.
    click_menu(browser, "Run", "Run All Cells")
    # JupyterLab stops running at a cell that fails: stop waiting when an error shows.
    wait_for(lambda: any(is_error(o) for o in js(browser, OUTPUTS_SCRIPT))
             or (all_ran(js(browser, PROMPTS_SCRIPT), code_cells) and kernel_idle(browser)),
             timeout, f"{name} to run all {code_cells} code cells")
    outputs = js(browser, OUTPUTS_SCRIPT)
    errors = [o["text"] for o in outputs if is_error(o)]
    if errors:
        raise CheckFailed(f"{name}: a cell shows an error after Run All:\n{errors[0]}")
    check_no_sideways_scroll(name + " after running", outputs)
    screenshot_outputs(browser, shots / f"{name}-run")
    if name == "02_backward":
        check_stepper(browser, shots / name)
    print(f"{name}: {expected} stored images shown before running; {code_cells} cells ran without error")


def is_error(output: dict) -> bool:
    """An error output: JupyterLab shows it on stderr, a traceback or ``SomeError: ...``."""
    return output["mime"] == "application/vnd.jupyter.stderr" and bool(
        "Traceback" in output["text"] or re.search(r"^\w*(Error|Exception)\b", output["text"], re.M)
    )


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
    return bool(js(browser, """
        return [...document.querySelectorAll('.jp-StatusBar-TextItem')].some(w => / \\| Idle$/.test(w.innerText.trim()));"""))


def all_ran(prompts: list[str], code_cells: int) -> bool:
    """Every code cell shows an execution count (``[12]:``), none is queued or running (``[*]:``)."""
    return len(prompts) == code_cells and all(re.fullmatch(r"\[\d+\]:", p) for p in prompts)


def click_menu(browser: Any, menu: str, item: str) -> None:
    from selenium.webdriver.common.by import By

    browser.find_element(By.XPATH, f"//li[contains(@class,'lm-MenuBar-item')][.//div[text()='{menu}']]").click()
    entry = wait_for(lambda: browser.find_elements(
        By.XPATH, f"//li[contains(@class,'lm-Menu-item')][.//div[contains(@class,'lm-Menu-itemLabel')][text()='{item}']]"),
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
    """``state`` if it shows ``step`` with the node its label names highlighted, else None."""
    try:
        check_step(state, step)
    except CheckFailed:
        return None
    return state


def check_stepper(browser: Any, prefix: Path) -> None:
    """Click to the end, one back, reset, one forward; check the label and highlight each time.

    The seed (step 0) and the root's rule (step 1) both highlight the root."""
    from selenium.webdriver.common.by import By

    def click(button: str, expected_step: int) -> dict:
        box = browser.find_element(By.XPATH, f"//div[contains(@class,'widget-vbox')]//button[normalize-space()='{button}']")
        js(browser, "arguments[0].scrollIntoView({block: 'center'})", box)
        box.click()
        # The label and the picture are two widgets, updated one after the other: wait for both.
        return wait_for(lambda: settled(stepper_state(browser), expected_step), 10,
                        f"the stepper to show step {expected_step} after '{button}'")

    def shot(state: dict) -> None:
        box = browser.find_element(By.XPATH, "//div[contains(@class,'widget-vbox')][.//button[normalize-space()='reset']]")
        js(browser, "arguments[0].scrollIntoView({block: 'start'})", box)
        box.screenshot(f"{prefix}-stepper-step-{state['step']:02d}.png")

    state = stepper_state(browser)  # where the lesson's own cells left it
    check_step(state, state["step"])
    shot(state)
    last = state["last"]
    for step in range(state["step"] + 1, last + 1):
        state = click("next", step)
        check_step(state, step)
        if step == last // 2:
            shot(state)
    if not state["buttons"]["next"] or state["buttons"]["previous"]:
        raise CheckFailed("at the last step the stepper's next button should be disabled, previous enabled")
    shot(state)
    check_step(click("previous", last - 1), last - 1)
    state = click("reset", 0)
    root, _ = check_step(state, 0)
    if not state["buttons"]["previous"] or state["buttons"]["next"]:
        raise CheckFailed("at step 0 the stepper's previous button should be disabled, next enabled")
    shot(state)
    state = click("next", 1)
    if check_step(state, 1)[0] != root:
        raise CheckFailed(f"step 1 (the root's rule) highlights {state['highlighted'][0][0]}, "
                          f"step 0 (the seed) {root}: not the same node")
    shot(state)
    print(f"02_backward: the stepper went to step {last}, back, reset and forward, highlighting the node each step names")


if __name__ == "__main__":
    sys.exit(main())
