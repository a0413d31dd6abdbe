package steps

import "testing"

// Every pattern of setupSteps names steps the features use (a renamed step
// would otherwise wait for what is pending where it need not, or stop
// waiting where it must); and a step that only observes is never setup.
func TestSetupStepsAreUsed(t *testing.T) {
	used := make([]int, len(setupSteps))
	for _, p := range pickles(t) {
		for _, st := range p.Steps {
			for i, re := range setupSteps {
				if re.MatchString(st.Text) {
					used[i]++
				}
			}
		}
	}
	for i, n := range used {
		if n == 0 {
			t.Errorf("setupSteps[%d] %q matches no step of the features", i, setupSteps[i])
		}
	}
	for _, observes := range []string{
		"Ann can create a tag",
		"Ann has created a personal access token for herself",
		"Ann's token works",
		"Ann creates a tag",
		"the policy granting Ann CREATE_TAGS is set INACTIVE", // the change judged next: no wait
	} {
		if isSetupStep(observes) {
			t.Errorf("%q is taken for setup: it would not wait for the grants before it", observes)
		}
	}
}
