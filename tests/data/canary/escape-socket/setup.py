import socket
socket.create_connection(("93.184.215.14", 80), timeout=5)
from setuptools import setup; setup()
