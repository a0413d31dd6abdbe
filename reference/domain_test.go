package reference

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseURN(t *testing.T) {
	good := map[string]URN{
		"urn:li:corpuser:ann": {EntityType: "corpuser", ID: "ann"},
		"urn:li:tag:pii":      {EntityType: "tag", ID: "pii"},
		"urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)": {EntityType: "dataset", ID: "(urn:li:dataPlatform:hive,db.t,PROD)"},
	}
	for s, want := range good {
		got, err := ParseURN(s)
		if err != nil || got != want || got.String() != s {
			t.Errorf("ParseURN(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "urn:li:", "urn:li:tag", "urn:li:tag:", "urn:li::x", "tag:x", "urn:xx:tag:x", "urn:li:ta-g:x", "urn:li:tag:a\nb"} {
		_, err := ParseURN(s)
		if ErrorCodeOf(err) != EBADREQUEST {
			t.Errorf("ParseURN(%q) error = %v, want BAD_REQUEST", s, err)
		}
	}
}

func TestTokenIDIsPaddedBase64OfSHA256OfTokenThenSalt(t *testing.T) {
	sum := sha256.Sum256([]byte("tokensalt"))
	want := base64.StdEncoding.EncodeToString(sum[:])
	if got := TokenID("token", []byte("salt")); got != want {
		t.Errorf("TokenID = %q, want %q", got, want)
	}
	if got := TokenID("token", []byte("salt")); len(got) != 44 || got[43] != '=' {
		t.Errorf("TokenID %q is not padded standard Base64 of 32 bytes", got)
	}
	// A token longer than the stack buffer TokenID hashes from.
	long := strings.Repeat("t", 1500)
	sum = sha256.Sum256([]byte(long + "salt"))
	if got, want := TokenID(long, []byte("salt")), base64.StdEncoding.EncodeToString(sum[:]); got != want {
		t.Errorf("TokenID of %d bytes = %q, want %q", len(long), got, want)
	}
}

func TestTokenLifetimes(t *testing.T) {
	day := 24 * time.Hour
	want := map[string]time.Duration{
		"ONE_HOUR": time.Hour, "ONE_DAY": day, "ONE_WEEK": 7 * day, "ONE_MONTH": 30 * day,
		"THREE_MONTHS": 90 * day, "SIX_MONTHS": 180 * day, "ONE_YEAR": 365 * day, "NO_EXPIRY": 0,
	}
	for name, d := range want {
		got, err := TokenLifetime(name)
		if err != nil || got != d {
			t.Errorf("TokenLifetime(%s) = %v, %v; want %v", name, got, err, d)
		}
	}
	if _, err := TokenLifetime("FOREVER"); ErrorCodeOf(err) != EBADREQUEST {
		t.Errorf("unknown duration error = %v", err)
	}
}

func TestPolicyGrants(t *testing.T) {
	ann, bob := UserURN("ann"), UserURN("bob")
	tag := URN{EntityType: EntityTag, ID: "t"}
	platform := Policy{Type: PolicyPlatform, State: PolicyActive, Privileges: []string{PrivCreateTags}, Actors: ActorFilter{Users: []string{ann.String()}}}
	if !platform.Grants(ann, PrivCreateTags, URN{}) {
		t.Error("active platform policy does not grant its privilege to its user")
	}
	if platform.Grants(bob, PrivCreateTags, URN{}) {
		t.Error("policy grants to a user it does not name")
	}
	if platform.Grants(ann, PrivManageTags, URN{}) {
		t.Error("policy grants a privilege it does not list")
	}
	if platform.Grants(ann, PrivCreateTags, tag) {
		t.Error("platform policy grants on a resource")
	}
	inactive := platform
	inactive.State = PolicyInactive
	if inactive.Grants(ann, PrivCreateTags, URN{}) {
		t.Error("INACTIVE policy grants")
	}
	everyone := Policy{Type: PolicyMetadata, State: PolicyActive, Privileges: []string{PrivEditEntity}, Actors: ActorFilter{AllUsers: true}, Resources: &ResourceFilter{Resources: []string{tag.String()}}}
	if !everyone.Grants(bob, PrivEditEntity, tag) {
		t.Error("allUsers metadata policy does not grant on its resource")
	}
	if everyone.Grants(bob, PrivEditEntity, URN{EntityType: EntityTag, ID: "other"}) {
		t.Error("metadata policy grants on a resource it does not list")
	}
	if everyone.Grants(bob, PrivEditEntity, URN{}) {
		t.Error("metadata policy grants a platform privilege")
	}
}

func TestPolicyValidate(t *testing.T) {
	bad := []Policy{
		{Type: "OTHER", State: PolicyActive, Name: "x"},
		{Type: PolicyPlatform, State: "ON", Name: "x"},
		{Type: PolicyPlatform, State: PolicyActive, Name: ""},
		{Type: PolicyPlatform, State: PolicyActive, Name: "x", Privileges: []string{PrivEditEntity}},
		{Type: PolicyMetadata, State: PolicyActive, Name: "x", Privileges: []string{PrivCreateTags}},
		{Type: PolicyPlatform, State: PolicyActive, Name: "x", Actors: ActorFilter{Users: []string{"ann"}}},
	}
	for i, p := range bad {
		if err := p.Validate(); ErrorCodeOf(err) != EBADREQUEST {
			t.Errorf("case %d: Validate = %v, want BAD_REQUEST", i, err)
		}
	}
	for _, p := range BootPolicies() {
		if err := p.Validate(); err != nil {
			t.Errorf("boot policy %q invalid: %v", p.Name, err)
		}
	}
}

func TestErrorMapping(t *testing.T) {
	cases := map[ErrorCode]int{EBADREQUEST: 400, EUNAUTHENTICATED: 401, EUNAUTHORIZED: 403, ENOTFOUND: 404, ECONFLICT: 409, EUNPROCESSABLE: 422, EUNAVAILABLE: 503, EINTERNAL: 500}
	for code, status := range cases {
		if got := HTTPStatus(code); got != status {
			t.Errorf("HTTPStatus(%s) = %d, want %d", code, got, status)
		}
	}
	plain := errString("pq: connection refused at 10.0.0.1")
	if ErrorCodeOf(plain) != EINTERNAL || ErrorMessageOf(plain) != InternalMessage {
		t.Error("an unknown error's text would reach the client")
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestKeyFromURN: an entity's key aspect is its URN's parts, by the key's
// fields in order (DataHub's EntityKeyUtils), and a URN whose parts do not
// fit its type's key (their number, a URN part of the wrong type, a
// symbol that is not the enum's) has none.
func TestKeyFromURN(t *testing.T) {
	for urn, want := range map[URN]string{
		{EntityType: EntityDataset, ID: "(urn:li:dataPlatform:hive,db.t,PROD)"}: `datasetKey {"name":"db.t","origin":"PROD","platform":"urn:li:dataPlatform:hive"}`,
		{EntityType: EntityTag, ID: "pii"}:                                      `tagKey {"name":"pii"}`,
		{EntityType: EntityCorpUser, ID: "ann"}:                                 `corpUserKey {"username":"ann"}`,
		{EntityType: EntityPolicy, ID: "0"}:                                     `dataHubPolicyKey {"id":"0"}`,
		{EntityType: "chart", ID: "(looker,1)"}:                                 `chartKey {"chartId":"1","dashboardTool":"looker"}`,
		{EntityType: "dataJob", ID: "(urn:li:dataFlow:(datahub,p,prod),j)"}:     `dataJobKey {"flow":"urn:li:dataFlow:(datahub,p,prod)","jobId":"j"}`,
		{EntityType: "container", ID: "abc"}:                                    `containerKey {"guid":"abc"}`,
		{EntityType: "dataHubExecutionRequest", ID: "file-2026_03_27-x"}:        `dataHubExecutionRequestKey {"id":"file-2026_03_27-x"}`,
	} {
		name, value, err := entityKey(urn)
		if err != nil {
			t.Errorf("entityKey(%s): %v", urn, err)
			continue
		}
		b, _ := json.Marshal(value)
		if got := name + " " + string(b); got != want {
			t.Errorf("entityKey(%s) = %s, want %s", urn, got, want)
		}
	}
	for urn, code := range map[URN]ErrorCode{
		{EntityType: EntityDataset, ID: "db.t"}:                                 EBADREQUEST,
		{EntityType: EntityDataset, ID: "(urn:li:dataPlatform:hive,db.t,prod)"}: EBADREQUEST,
		{EntityType: EntityDataset, ID: "(hive,db.t,PROD)"}:                     EBADREQUEST,
		{EntityType: EntityDataset, ID: "(urn:li:nosuchtype:x,db.t,PROD)"}:      EBADREQUEST,
		{EntityType: EntityDataset, ID: "(urn:li:dataPlatform:hive,,PROD)"}:     EBADREQUEST,
		{EntityType: EntityDataset, ID: "(urn:li:dataPlatform:hive,db.t,PROD"}:  EBADREQUEST,
		{EntityType: "dataJob", ID: "(urn:li:dataPlatform:hive,j)"}:             EBADREQUEST,
		{EntityType: "dataJob", ID: "(urn:li:dataFlow:(datahub,p),j)"}:          EBADREQUEST,
		{EntityType: "chart", ID: "looker"}:                                     EBADREQUEST,
		{EntityType: "nosuchtype", ID: "x"}:                                     EBADREQUEST,
	} {
		if name, _, err := entityKey(urn); ErrorCodeOf(err) != code {
			t.Errorf("entityKey(%s) = %q, %v; want %s", urn, name, err, code)
		}
	}
}

// TestKeyParts: a URN's id splits as DataHub's TupleKey splits it.
func TestKeyParts(t *testing.T) {
	for id, want := range map[string][]string{
		"a":                  {"a"},
		"a,b":                {"a,b"},
		"(a,b)":              {"a", "b"},
		"(a,b(c,d))":         {"a", "b(c,d)"},
		"(urn:li:x:(1,2),y)": {"urn:li:x:(1,2)", "y"},
		"(a)":                {"a"},
		"f(x)":               {"f(x)"},
	} {
		got, err := keyParts(id)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("keyParts(%q) = %q, %v; want %q", id, got, err, want)
		}
	}
	for _, id := range []string{"(a,,b)", "(,a)", "(a,b", "a)", "(a))", "()", "(a,)"} {
		if got, err := keyParts(id); err == nil {
			t.Errorf("keyParts(%q) = %q; want an error", id, got)
		}
	}
}

// TestPolicyOfAnUnknownTypeGrantsNothing: a policy that is neither PLATFORM
// nor METADATA grants nothing, on the platform or on any resource.
func TestPolicyOfAnUnknownTypeGrantsNothing(t *testing.T) {
	ann := URN{EntityType: EntityCorpUser, ID: "ann"}
	p := Policy{Type: "OTHER", State: PolicyActive, Privileges: []string{PrivManageTags, PrivDeleteEntity},
		Actors: ActorFilter{AllUsers: true}, Resources: &ResourceFilter{AllResources: true}}
	if p.Grants(ann, PrivManageTags, URN{}) || p.Grants(ann, PrivDeleteEntity, URN{EntityType: EntityTag, ID: "pii"}) {
		t.Error("a policy of type OTHER grants a privilege")
	}
}

// TestURNLengthAndZero: a URN of 1,024 bytes parses and one of 1,025 does
// not; a URN is zero only when both its type and its id are empty.
func TestURNLengthAndZero(t *testing.T) {
	prefix := "urn:li:tag:"
	if _, err := ParseURN(prefix + strings.Repeat("a", 1024-len(prefix))); err != nil {
		t.Errorf("a URN of 1,024 bytes: %v", err)
	}
	if _, err := ParseURN(prefix + strings.Repeat("a", 1025-len(prefix))); err == nil {
		t.Error("a URN of 1,025 bytes parsed")
	}
	for _, u := range []URN{{EntityType: "tag"}, {ID: "x"}} {
		if u.IsZero() {
			t.Errorf("%+v is zero", u)
		}
	}
	if !(URN{}).IsZero() {
		t.Error("the zero URN is not zero")
	}
}

func TestCreatingTagsIsAllowedByCreateTagsOrManageTags(t *testing.T) {
	for _, c := range []struct {
		held PlatformPrivilegeSet
		want bool
	}{
		{PlatformPrivilegeSet{PrivCreateTags: true}, true},
		{PlatformPrivilegeSet{PrivManageTags: true}, true},
		{PlatformPrivilegeSet{PrivCreateTags: false, PrivManageTags: false, PrivManagePolicies: true, PrivManageAccessTokens: true}, false},
		{PlatformPrivilegeSet{}, false},
	} {
		if got := c.held.CanCreateTags(); got != c.want {
			t.Errorf("%v.CanCreateTags() = %t, want %t", c.held, got, c.want)
		}
	}
}
