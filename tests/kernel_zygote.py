"""Jupyter kernels forked from one Python that has imported ipykernel (and torch).

Starting a kernel is starting a Python, importing ipykernel, and, in every notebook
of the site, importing torch in the first cell: seconds before any of the notebook
runs. tests/test_notebooks.py runs each notebook in a fresh kernel of its own; this
makes those kernels forks of one process that has done the imports.

``kernel_zygote.py serve SOCKET [MODULE ...]``
    Imports ``ipykernel.kernelapp`` (what ``python -m ipykernel_launcher`` imports
    first) and the MODULEs, then listens on the Unix socket SOCKET until its standard
    input closes. For each
    connection it forks a watcher, which forks the kernel: standard input, output and
    error, folder, environment and ``argv`` are the launcher's, and it runs
    ``IPKernelApp.launch_instance`` as ``ipykernel_launcher`` does. The watcher tells
    the launcher the kernel's pid, then its exit status; when the launcher goes away
    it kills the kernel.

``kernel_zygote.py launch SOCKET ARG ...``
    The command of the kernelspec (``jupyter_client`` starts it as it starts any
    kernel): asks the server for a kernel with these arguments (``-f
    {connection_file}``), passes signals on to it (an interrupt is SIGINT), and exits
    with its status. Standard library only.

Jupyter talks to the kernel through the ports of the connection file, so the
kernel's messages, outputs and errors are those of a kernel started by
``ipykernel_launcher``. A forked kernel differs only in having imported the modules
before its first cell; the test uses a kernelspec that imports torch only for a
notebook that imports nothing but modules before torch (``preloaded_is_safe`` of
runnable_runner.py), so that a notebook which forgot an import still fails.
"""

import json
import os
import select
import signal
import socket
import sys


def serve(path: str, modules: list[str]) -> None:
    import ipykernel.kernelapp  # noqa: F401  (what every kernel imports first)

    for module in modules:
        __import__(module)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # watchers are reaped by the system
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)
    while True:
        ready, _, _ = select.select([server, 0], [], [])
        if 0 in ready and not os.read(0, 4096):
            return  # whoever started the server closed its input, or is gone
        if server not in ready:
            continue
        connection, _ = server.accept()
        sys.stdout.flush()
        sys.stderr.flush()
        if os.fork() == 0:
            server.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            watch(connection, modules)
        connection.close()


def watch(connection: socket.socket, modules: list[str]) -> None:
    """In the watcher: start the kernel, report its pid and status. Never returns."""
    status = 1
    try:
        message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
        job = json.loads(message)
        pid = os.fork()
        if pid == 0:
            connection.close()
            kernel(job, fds, modules)
        for fd in fds:
            os.close(fd)
        connection.sendall(f"pid {pid}\n".encode())
        while True:
            done, wait_status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(wait_status)
                connection.sendall(f"exit {code}\n".encode())
                status = 0
                break
            connection.settimeout(0.05)
            try:
                if connection.recv(1) == b"":  # the launcher is gone
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    break
            except TimeoutError:
                pass
    finally:
        os._exit(status)


def kernel(job: dict, fds: list[int], modules: list[str]) -> None:
    """In the kernel: become the launcher's kernel. Never returns."""
    status = 1
    try:
        for number, fd in enumerate(fds):
            os.dup2(fd, number)
            os.close(fd)
        os.setsid()
        os.chdir(job["cwd"])
        os.environ.clear()
        os.environ.update(job["env"])
        sys.argv = job["argv"]
        from ipykernel.kernelapp import IPKernelApp

        # Read from the environment when ipykernel is imported, as a fresh kernel does
        # after jupyter_client has set it: the process that started the kernel.
        IPKernelApp.class_traits()["parent_handle"].default_value = int(
            os.environ.get("JPY_PARENT_PID") or 0
        )
        if "torch" in modules:
            sys.modules["torch"].seed()  # as a fresh Python seeds it

        status = 0
        try:
            IPKernelApp.launch_instance(argv=job["argv"][1:])
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else (stop.code is not None)
        import atexit
        import threading

        threading._shutdown()
        atexit._run_exitfuncs()
    except BaseException:
        import traceback

        traceback.print_exc()
        status = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)


def launch(path: str, args: list[str]) -> None:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(path)
    job = {"argv": ["ipykernel_launcher", *args], "cwd": os.getcwd(), "env": dict(os.environ)}
    socket.send_fds(client, [json.dumps(job).encode()], [0, 1, 2])
    reader = client.makefile("r")
    pid = int(reader.readline().split()[1])

    def pass_on(number, _frame):
        try:
            os.kill(pid, number)
        except ProcessLookupError:
            pass

    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(number, pass_on)
    line = reader.readline()
    code = int(line.split()[1]) if line.startswith("exit ") else 1
    sys.exit(128 - code if code < 0 else code)


if __name__ == "__main__":
    command, path, *rest = sys.argv[1:]
    if command == "serve":
        serve(path, rest)
    elif command == "launch":
        launch(path, rest)
    else:
        sys.exit(f"unknown command {command!r}")
