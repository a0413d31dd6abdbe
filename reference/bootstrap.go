package reference

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
)

// Bootstrap makes the state the contract promises from the first start: the
// root user and the boot policies. It runs once per database (a marker in the
// store remembers), so an operator's later edits and deletions stand.
//
// rootPassword sets the root user's password when non-empty. When it is empty
// and root has none yet, Bootstrap generates one and returns it so the
// operator can be shown it once; it is stored only as a bcrypt hash.
func (s *Service) Bootstrap(ctx context.Context, rootPassword string) (generated string, err error) {
	system := Actor{URN: SystemUser, System: true}
	first := false
	if _, err := s.store.Secret(ctx, "bootstrap.v1", func() ([]byte, error) {
		first = true
		return []byte("done"), nil
	}); err != nil {
		return "", fmt.Errorf("bootstrap marker: %w", err)
	}
	if first {
		key, err := s.newAspect(system, RootUser, AspectCorpUserKey, map[string]string{"username": RootUser.ID})
		if err != nil {
			return "", err
		}
		info, err := s.newAspect(system, RootUser, AspectCorpUserInfo, corpUserInfo{Active: true, DisplayName: "DataHub", FullName: "DataHub Root User"})
		if err != nil {
			return "", err
		}
		if err := s.store.CreateEntity(ctx, []Aspect{key, info}); err != nil && ErrorCodeOf(err) != ECONFLICT {
			return "", fmt.Errorf("create root user: %w", err)
		}
		for _, p := range BootPolicies() {
			if err := s.writeNewPolicy(ctx, system, p); err != nil && ErrorCodeOf(err) != ECONFLICT {
				return "", fmt.Errorf("create boot policy %s: %w", p.URN, err)
			}
		}
	}
	if err := s.settleBootPolicies(ctx, system); err != nil {
		return "", fmt.Errorf("boot policies: %w", err)
	}
	_, err = s.store.Aspect(ctx, RootUser, AspectCorpUserCredentials)
	hasPassword := err == nil
	if err != nil && !isNotFound(err) {
		return "", err
	}
	if rootPassword == "" && hasPassword {
		return "", nil
	}
	if rootPassword == "" {
		b := make([]byte, 18)
		if _, err := rand.Read(b); err != nil {
			return "", err
		}
		rootPassword = base64.RawURLEncoding.EncodeToString(b)
		generated = rootPassword
	}
	hash, err := s.hashPassword(rootPassword)
	if err != nil {
		return "", fmt.Errorf("hash root password: %w", err)
	}
	cred, err := s.newAspect(system, RootUser, AspectCorpUserCredentials, map[string]string{"hashedPassword": string(hash)})
	if err != nil {
		return "", err
	}
	if err := s.store.UpsertAspect(ctx, cred); err != nil {
		return "", fmt.Errorf("store root password: %w", err)
	}
	return generated, nil
}

// settleBootPolicies brings the starting policies that an earlier catalogd
// stored into line with BootPolicies: it wrote the root user's two as
// editable, where DataHub's are not, and without the privileges added
// since (the root user holds every one; every user may read timeseries
// aspects, as DataHub's "All Users - View Entity Page" lets them). Only a
// policy nobody has written since (its info written by the system user)
// is changed; one an administrator rewrote or deleted stays as they left
// it. It runs at every start and finds nothing to do once done.
func (s *Service) settleBootPolicies(ctx context.Context, system Actor) error {
	for _, want := range BootPolicies() {
		a, err := s.store.Aspect(ctx, want.URN, AspectPolicyInfo)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		var stored Policy
		if err := json.Unmarshal(a.Value, &stored); err != nil {
			return fmt.Errorf("policy %s: %w", want.URN, err)
		}
		missing := slices.DeleteFunc(slices.Clone(want.Privileges), func(p string) bool { return slices.Contains(stored.Privileges, p) })
		if a.CreatedBy != system.URN.String() || stored.Editable == want.Editable && len(missing) == 0 {
			continue
		}
		stored.Editable = want.Editable
		stored.Privileges = append(stored.Privileges, missing...)
		settled, err := s.newAspect(system, want.URN, AspectPolicyInfo, stored)
		if err != nil {
			return err
		}
		if err := s.store.ReplaceAspect(ctx, settled); err != nil && !isNotFound(err) {
			return err
		}
	}
	return nil
}
