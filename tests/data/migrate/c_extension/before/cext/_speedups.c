#include <Python.h>
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_speedups", NULL, -1, NULL};
PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&mod); }
