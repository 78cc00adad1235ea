"""A log with sessions but no ranks (issue 34): before, "attempt to get argmax of an empty
sequence" from NumPy."""
import numpy as np
import pytest

from ragmetrics_edu.online.metrics import click_through_rate, online_metrics


@pytest.mark.parametrize("call", [online_metrics, click_through_rate])
def test_no_ranks_is_refused_naming_clicks(call):
    with pytest.raises(ValueError, match=r"clicks must hold at least one rank per session, "
                       r"got shape \(3, 0\)"):
        call(np.zeros((3, 0)))
