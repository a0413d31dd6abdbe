package steps

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
)

// documents are the GraphQL documents the steps send, read once per run
// from fixtures/graphql, one file per document, named by meaning.
type documents struct {
	me                     string
	appConfig              string
	createTag              string
	tag                    string
	deleteTag              string
	createAccessToken      string
	revokeAccessToken      string
	listAccessTokens       string
	getAccessTokenMetadata string
	createPolicy           string
	updatePolicy           string
	deletePolicy           string
	listPolicies           string
	createResetToken       string
	getInviteToken         string
	createInviteToken      string
	listUsers              string
	removeUser             string
	corpUserProfile        string
	corpUser               string
	introspection          string
	listPoliciesEditable   string
	typeByName             string
}

// loadDocuments reads every document from the root of fsys.
func loadDocuments(fsys fs.FS) (documents, error) {
	var d documents
	files := map[string]*string{
		"me.graphql":                             &d.me,
		"app_config.graphql":                     &d.appConfig,
		"create_tag.graphql":                     &d.createTag,
		"tag.graphql":                            &d.tag,
		"delete_tag.graphql":                     &d.deleteTag,
		"create_access_token.graphql":            &d.createAccessToken,
		"revoke_access_token.graphql":            &d.revokeAccessToken,
		"list_access_tokens.graphql":             &d.listAccessTokens,
		"get_access_token_metadata.graphql":      &d.getAccessTokenMetadata,
		"create_policy.graphql":                  &d.createPolicy,
		"update_policy.graphql":                  &d.updatePolicy,
		"delete_policy.graphql":                  &d.deletePolicy,
		"list_policies.graphql":                  &d.listPolicies,
		"create_native_user_reset_token.graphql": &d.createResetToken,
		"get_invite_token.graphql":               &d.getInviteToken,
		"create_invite_token.graphql":            &d.createInviteToken,
		"list_users.graphql":                     &d.listUsers,
		"remove_user.graphql":                    &d.removeUser,
		"corp_user_profile.graphql":              &d.corpUserProfile,
		"corp_user.graphql":                      &d.corpUser,
		"introspection.graphql":                  &d.introspection,
		"list_policies_editable.graphql":         &d.listPoliciesEditable,
		"type_by_name.graphql":                   &d.typeByName,
	}
	fragments, err := fs.Glob(fsys, "*.fragment.graphql")
	if err != nil {
		return documents{}, err
	}
	byName := map[string]string{}
	for _, path := range fragments {
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return documents{}, fmt.Errorf("reading the GraphQL fragment %s: %w", path, err)
		}
		m := fragmentName.FindSubmatch(b)
		if m == nil {
			return documents{}, fmt.Errorf("%s defines no fragment", path)
		}
		byName[string(m[1])] = string(b)
	}
	for name, into := range files {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return documents{}, fmt.Errorf("reading the GraphQL document %s: %w", name, err)
		}
		doc := string(b)
		for frag, text := range byName {
			if strings.Contains(doc, "..."+frag) {
				doc += "\n" + text
			}
		}
		*into = doc
	}
	return d, nil
}

// fragmentName finds the name a fragment file defines.
var fragmentName = regexp.MustCompile(`(?m)^fragment\s+(\w+)\s+on\s`)
