"""A minimal in-tree PEP 517 backend (no setuptools): builds an empty wheel."""
import base64
import hashlib
import os
import zipfile

NAME, VERSION = "tinypkg", "1.0"
DIST_INFO = f"{NAME}-{VERSION}.dist-info"
METADATA = f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
WHEEL = "Wheel-Version: 1.0\nGenerator: tinybackend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    path = os.path.join(metadata_directory, DIST_INFO)
    os.makedirs(path)
    for name, text in (("METADATA", METADATA), ("WHEEL", WHEEL)):
        with open(os.path.join(path, name), "w") as f:
            f.write(text)
    return DIST_INFO


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    filename = f"{NAME}-{VERSION}-py3-none-any.whl"
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w") as wheel:
        for name, text in (("METADATA", METADATA), ("WHEEL", WHEEL)):
            data = text.encode()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            wheel.writestr(f"{DIST_INFO}/{name}", data)
            records.append(f"{DIST_INFO}/{name},sha256={digest.decode()},{len(data)}")
        records.append(f"{DIST_INFO}/RECORD,,")
        wheel.writestr(f"{DIST_INFO}/RECORD", "\n".join(records) + "\n")
    return filename
