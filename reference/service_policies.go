package reference

import (
	"context"
	"strings"

	"github.com/google/uuid"
)

// CreatePolicy needs MANAGE_POLICIES and returns the new policy's URN.
func (s *Service) CreatePolicy(ctx context.Context, p Policy) (URN, error) {
	caller, err := s.require(ctx, URN{}, PrivManagePolicies)
	if err != nil {
		return URN{}, err
	}
	if err := p.Validate(); err != nil {
		return URN{}, err
	}
	p.URN = URN{EntityType: EntityPolicy, ID: uuid.NewString()}
	p.Editable = true
	if err := s.writeNewPolicy(ctx, caller, p); err != nil {
		return URN{}, err
	}
	return p.URN, nil
}

func (s *Service) writeNewPolicy(ctx context.Context, a Actor, p Policy) error {
	key, err := s.newAspect(a, p.URN, AspectPolicyKey, map[string]string{"id": p.URN.ID})
	if err != nil {
		return err
	}
	info, err := s.newAspect(a, p.URN, AspectPolicyInfo, p)
	if err != nil {
		return err
	}
	return s.store.CreateEntity(ctx, []Aspect{key, info})
}

// UpdatePolicy replaces a policy: needs MANAGE_POLICIES.
func (s *Service) UpdatePolicy(ctx context.Context, rawURN string, p Policy) (URN, error) {
	caller, err := s.require(ctx, URN{}, PrivManagePolicies)
	if err != nil {
		return URN{}, err
	}
	urn, err := policyURN(rawURN)
	if err != nil {
		return URN{}, err
	}
	if err := p.Validate(); err != nil {
		return URN{}, err
	}
	p.URN, p.Editable = urn, true
	a, err := s.newAspect(caller, urn, AspectPolicyInfo, p)
	if err != nil {
		return URN{}, err
	}
	if err := s.store.ReplaceAspect(ctx, a); err != nil {
		if isNotFound(err) {
			return URN{}, Errorf(ENOTFOUND, "policy %s does not exist", urn)
		}
		return URN{}, err
	}
	return urn, nil
}

// DeletePolicy removes a policy: needs MANAGE_POLICIES.
func (s *Service) DeletePolicy(ctx context.Context, rawURN string) (URN, error) {
	if _, err := s.require(ctx, URN{}, PrivManagePolicies); err != nil {
		return URN{}, err
	}
	urn, err := policyURN(rawURN)
	if err != nil {
		return URN{}, err
	}
	found, err := s.store.DeleteEntity(ctx, urn)
	if err != nil {
		return URN{}, err
	}
	if !found {
		return URN{}, Errorf(ENOTFOUND, "policy %s does not exist", urn)
	}
	return urn, nil
}

// ListPolicies lists policies, newest first, optionally those whose name
// contains query: needs MANAGE_POLICIES.
func (s *Service) ListPolicies(ctx context.Context, start, count int, query string) ([]Policy, int, error) {
	if _, err := s.require(ctx, URN{}, PrivManagePolicies); err != nil {
		return nil, 0, err
	}
	start, count, err := page(start, count)
	if err != nil {
		return nil, 0, err
	}
	aspects, _, err := s.store.ListAspects(Metered(ctx), Filter{EntityType: EntityPolicy, Aspect: AspectPolicyInfo, Search: true})
	if err != nil {
		return nil, 0, err
	}
	var all []Policy
	q := strings.ToLower(query)
	for _, a := range aspects {
		p, err := decodePolicy(a)
		if err != nil {
			return nil, 0, err
		}
		if q == "" || strings.Contains(strings.ToLower(p.Name), q) {
			all = append(all, p)
		}
	}
	total := len(all)
	if start > total {
		start = total
	}
	end := min(start+count, total)
	return all[start:end], total, nil
}

func policyURN(raw string) (URN, error) {
	urn, err := ParseURN(raw)
	if err != nil {
		return URN{}, err
	}
	if urn.EntityType != EntityPolicy {
		return URN{}, Errorf(EBADREQUEST, "%s is not a dataHubPolicy urn", urn)
	}
	return urn, nil
}
