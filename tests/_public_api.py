"""The package's public face, as the API tests read it: every public module, and every public
function, class and method in them (each once, under the module that defines it)."""

import importlib
import inspect
import pkgutil

import ragmetrics_edu as rm


def public_modules():
    """The dotted names of the modules of no private part (no part starts with ``_``)."""
    for info in pkgutil.walk_packages(rm.__path__, "ragmetrics_edu."):
        if not any(p.startswith("_") for p in info.name.split(".")[1:]):
            yield info.name


def public_callables():
    """(dotted name without the package, object) of every public function and class, and of
    the public methods of each class (static and class methods unwrapped)."""
    seen = set()
    for name in public_modules():
        module = importlib.import_module(name)
        exported = getattr(module, "__all__", None)
        if exported is None:
            exported = [n for n in vars(module) if not n.startswith("_")]
        for attr in exported:
            obj = getattr(module, attr, None)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if not getattr(obj, "__module__", "").startswith("ragmetrics_edu"):
                continue
            if (obj.__module__, obj.__qualname__) in seen:
                continue
            seen.add((obj.__module__, obj.__qualname__))
            short = f"{obj.__module__.removeprefix('ragmetrics_edu.')}.{obj.__qualname__}"
            yield short, obj
            if inspect.isclass(obj):
                for meth_name, meth in vars(obj).items():
                    if isinstance(meth, (staticmethod, classmethod)):
                        meth = meth.__func__
                    if inspect.isfunction(meth) and not meth_name.startswith("_"):
                        yield f"{short}.{meth_name}", meth
