package steps

import (
	"slices"
	"strings"
	"testing"

	"github.com/catalogspec/catalogspec/runner"
)

// What a request names of its scenario's things is what the journal
// records before it goes: every kind the suite makes, wherever the request
// names it (URL, percent-encoded path, JSON body, a JSON string inside
// one), and nothing of another scenario's, nor anything the suite did not
// name (the root user, a fixed id).
func TestMentions(t *testing.T) {
	tgt := &runner.Target{GMS: "http://gms", Frontend: "http://fe", NoAuthGMS: "http://noauth"}
	w := &world{id: "abc12345", suite: &suite{Definitions: &Definitions{trace: newTrace(tgt, &documents{}, runner.HoldOptions{Lease: runner.DefaultLease})}}}
	dataset := "urn:li:dataset:(urn:li:dataPlatform:hive,catalogspec-dataset-abc12345-3,PROD)"
	for _, c := range []struct {
		name string
		r    request
		want []string
	}{
		{"a user ingested", request{url: "http://gms/aspects?action=ingestProposal",
			body: []byte(`{"proposal":{"entityUrn":"urn:li:corpuser:catalogspec-ann-abc12345","aspect":{"value":"{\"username\":\"catalogspec-ann-abc12345\"}"}}}`)},
			[]string{"user||urn:li:corpuser:catalogspec-ann-abc12345|"}},
		{"a dataset by its percent-encoded path", request{url: "http://gms/openapi/v3/entity/dataset/urn%3Ali%3Adataset%3A%28urn%3Ali%3AdataPlatform%3Ahive%2Ccatalogspec-dataset-abc12345-3%2CPROD%29"},
			[]string{"entity||" + dataset + "|"}},
		{"a tag by the id createTag is given", request{url: "http://gms/api/graphql",
			body: []byte(`{"query":"mutation createTag($input: CreateTagInput!) { createTag(input: $input) }","variables":{"input":{"id":"catalogspec-tag-abc12345-2","name":"n"}}}`)},
			[]string{"tag||urn:li:tag:catalogspec-tag-abc12345-2|"}},
		{"a tag by a mutation sent by GET", request{url: "http://gms/api/graphql?query=mutation+%7B+createTag%28input%3A+%7Bid%3A+%22catalogspec-tag-abc12345-9%22%7D%29+%7D"},
			[]string{"tag||urn:li:tag:catalogspec-tag-abc12345-9|"}},
		{"a policy by its name", request{url: "http://gms/api/graphql",
			body: []byte(`{"variables":{"input":{"name":"catalogspec-policy-abc12345-4 Ann CREATE_TAGS"}}}`)},
			[]string{"policy|||catalogspec-policy-abc12345-4"}},
		{"a policy and a token ingested", request{url: "http://gms/aspects?action=ingestProposal",
			body: []byte(`{"a":"urn:li:dataHubPolicy:catalogspec-ingest-abc12345-1","b":"urn:li:dataHubAccessToken:catalogspec-ingest-abc12345-2"}`)},
			[]string{"policy||urn:li:dataHubPolicy:catalogspec-ingest-abc12345-1|", "token||urn:li:dataHubAccessToken:catalogspec-ingest-abc12345-2|"}},
		{"someone signing up", request{url: "http://fe/signUp",
			body: []byte(`{"fullName":"Carl","email":"catalogspec-carl-abc12345@example.com","password":"x","inviteToken":"y"}`)},
			[]string{"user||urn:li:corpuser:catalogspec-carl-abc12345@example.com|"}},
		{"a user made at the auth-disabled deployment", request{url: "http://noauth/aspects?action=ingestProposal",
			body: []byte(`{"entityUrn":"urn:li:corpuser:catalogspec-bob-abc12345"}`)},
			[]string{"user|noauth|urn:li:corpuser:catalogspec-bob-abc12345|"}},
		{"a data job, whose URN nests another", request{method: "POST", url: "http://gms/aspects?action=ingestProposalBatch",
			body: []byte(`{"proposals":[{"entityUrn":"urn:li:dataJob:(urn:li:dataFlow:(datahub,catalogspec-pipeline-abc12345-5,prod),stale)"}]}`)},
			[]string{"entity||urn:li:dataFlow:(datahub,catalogspec-pipeline-abc12345-5,prod)|", "entity||urn:li:dataJob:(urn:li:dataFlow:(datahub,catalogspec-pipeline-abc12345-5,prod),stale)|"}},
		{"a run's report, by the pipeline it names", request{method: "POST", url: "http://gms/aspects?action=ingestProposalBatch",
			body: []byte(`{"proposals":[{"entityUrn":"urn:li:dataHubIngestionSource:cli-0a1b","aspect":{"value":"{\"name\":\"[CLI] file [catalogspec-pipeline-abc12345-5]\"}"}},{"entityUrn":"urn:li:dataHubExecutionRequest:file-2026_11_27-04_21_01-pu954r"}]}`)},
			[]string{"entity||urn:li:dataHubExecutionRequest:file-2026_11_27-04_21_01-pu954r|catalogspec-pipeline-abc12345-5", "entity||urn:li:dataHubIngestionSource:cli-0a1b|catalogspec-pipeline-abc12345-5"}},
		{"a run's report read", request{method: "GET", url: "http://gms/aspects/urn%3Ali%3AdataHubIngestionSource%3Acli-0a1b?aspect=x&version=0&catalogspec-pipeline-abc12345-5"}, nil},
		{"a tag by its path, then an aspect", request{method: "GET", url: "http://gms/openapi/v3/entity/tag/urn:li:tag:catalogspec-tag-abc12345-7/tagProperties"},
			[]string{"tag||urn:li:tag:catalogspec-tag-abc12345-7|"}},
		{"another scenario's things", request{url: "http://gms/api/graphql",
			body: []byte(`{"u":"urn:li:corpuser:catalogspec-ann-zzz99999","id":"catalogspec-tag-zzz99999-1"}`)}, nil},
		{"the root user, signing up with its name", request{url: "http://fe/signUp",
			body: []byte(`{"email":"datahub","fullName":"catalogspec-abc12345"}`)}, nil},
		{"a fixed id", request{url: "http://gms/api/graphql", body: []byte(`{"query":"mutation { createTag(input: {id: \"catalogspec-hidden\"}) } # abc12345"}`)}, nil},
	} {
		var got []string
		for _, e := range w.mentions(c.r) {
			got = append(got, e.key())
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// Repair never removes what the suite did not name, whatever a journal
// says, and keeps what it cannot reach.
func TestRepairRemovesOnlyWhatTheSuiteNamed(t *testing.T) {
	tgt := &runner.Target{GMS: "http://127.0.0.1:1"}
	tr := newTrace(tgt, &documents{}, runner.HoldOptions{Lease: runner.DefaultLease})
	var tally runner.Tally
	left := tr.repair(t.Context(), []entry{
		{Seq: 1, Kind: kindUser, URN: "urn:li:corpuser:datahub"},
		{Seq: 2, Kind: kindTag, URN: "urn:li:tag:catalogspec-tag-x-1", At: "noauth"},
	}, &tally)
	if len(left) != 1 || left[0].Seq != 2 {
		t.Errorf("left %v: want the entry of the deployment the run cannot reach, kept", left)
	}
	if len(tally.Failed) != 2 || !strings.Contains(tally.Failed[1], "not named by the suite") || !strings.Contains(tally.Failed[0], runner.EnvNoAuth) {
		t.Errorf("failed %q: want the root user refused and the auth-disabled deployment named", tally.Failed)
	}
}
