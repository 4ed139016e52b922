"""The planning pages' forms, a module per concern:

- `scenario`: `ScenarioForm`, the scenario's fields with labels, units and catalog choices;
- `checks`: its cross-field cleaning, and engine problems put back on their fields;
- `fields`: building blocks (limits, catalog categories, labelled choice fields, fieldsets);
- `inputs`: between a valid form and a Scenario (percent -> fraction, catalog rows, engine defaults);
- `pages`: the small forms of the other pages (sign-up, clone, list search, comparison picks).

Only what other modules use is exported here.
"""

from planner.forms.fields import FIELDSETS
from planner.forms.inputs import initial_from_scenario
from planner.forms.pages import CloneForm, CompareForm, GpuCompareForm, ScenarioSearchForm, SignupForm
from planner.forms.scenario import ScenarioForm

__all__ = [
    "FIELDSETS",
    "CloneForm",
    "CompareForm",
    "GpuCompareForm",
    "ScenarioForm",
    "ScenarioSearchForm",
    "SignupForm",
    "initial_from_scenario",
]
