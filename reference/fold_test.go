package reference

import (
	"reflect"
	"testing"
)

// A batchGet that names an entity more than once reads it once, where it
// was first named, with every aspect any mention names, or all of them
// when its first mention names none (DataHub reads the body into a map by
// URN).
func TestFoldRequestsNamesEachEntityOnce(t *testing.T) {
	for _, c := range []struct {
		name     string
		in, want []EntityRequest
	}{
		{"other aspects of one entity, and one named again",
			[]EntityRequest{{"a", []string{"x"}}, {"b", []string{"y"}}, {"a", []string{"z", "x"}}, {"a", []string{"x"}}},
			[]EntityRequest{{"a", []string{"x", "z"}}, {"b", []string{"y"}}}},
		{"first all of them, then one",
			[]EntityRequest{{"a", nil}, {"a", []string{"x"}}},
			[]EntityRequest{{"a", []string{}}}},
		{"no entity named twice",
			[]EntityRequest{{"a", []string{"x", "y"}}, {"b", nil}},
			[]EntityRequest{{"a", []string{"x", "y"}}, {"b", []string{}}}},
	} {
		got := foldRequests(c.in)
		for i := range got {
			if got[i].Aspects == nil {
				got[i].Aspects = []string{}
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: foldRequests(%v) = %v, want %v", c.name, c.in, got, c.want)
		}
	}
}

// A refusal in a batch names its proposal, but for a batch of one, whose
// refusal reads as that of a single write.
func TestInProposalNamesTheProposalOfABatch(t *testing.T) {
	err := Errorf(EBADREQUEST, "the value does not match")
	if got := ErrorMessageOf(inProposal(err, 0, 1)); got != "the value does not match" {
		t.Errorf("a batch of one: %q", got)
	}
	got := inProposal(err, 1, 3)
	if ErrorCodeOf(got) != EBADREQUEST || ErrorMessageOf(got) != "proposal 2 of 3: the value does not match" {
		t.Errorf("the second of three: %v", got)
	}
}
