import multiprocessing

# A process pool needs a lock, a POSIX semaphore in /dev/shm (scipy 1.7.1's setup.py
# cythonizes with one); pip's builds have it.
multiprocessing.Lock()

from setuptools import setup

setup()
