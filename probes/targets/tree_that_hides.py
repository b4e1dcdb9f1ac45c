"""A process tree that hides from its process group: `tree_that_hides.py PID_FILE` starts a spawn
worker, a forked child that calls setsid(), and a non-Python child in a new session, writes the
four pids (itself first) into PID_FILE, and waits. It ends by itself once PID_FILE.main-may-end
exists, leaving its children running."""
import multiprocessing
import os
import subprocess
import sys
import time


def worker():
    time.sleep(300)


def main():
    pid_file = sys.argv[1]
    spawned = multiprocessing.get_context("spawn").Process(target=worker)
    spawned.start()
    forked = os.fork()
    if forked == 0:
        os.setsid()
        time.sleep(300)
        os._exit(0)
    session = subprocess.Popen(["sleep", "300"], start_new_session=True)
    with open(pid_file + ".tmp", "w") as f:
        f.write(f"{os.getpid()} {spawned.pid} {forked} {session.pid}\n")
    os.rename(pid_file + ".tmp", pid_file)
    while not os.path.exists(pid_file + ".main-may-end"):
        time.sleep(0.05)
    os._exit(0)  # the children are left to run


if __name__ == "__main__":
    main()
