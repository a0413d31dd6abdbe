package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// TagExistsMessage is DataHub's message for a tag id used twice.
const TagExistsMessage = "This Tag already exists!"

// Tag is a tag as GraphQL shows it.
type Tag struct {
	URN         URN
	Name        string
	Description string
}

// CreateTagInput is what a caller asks for; ID may be empty.
type CreateTagInput struct {
	ID          string
	Name        string
	Description string
}

type tagProperties struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// CreateTag needs CREATE_TAGS or MANAGE_TAGS. An existing id is refused as
// DataHub's CreateTagResolver refuses it (BAD_REQUEST, "This Tag already
// exists!") and leaves the stored tag as it was.
func (s *Service) CreateTag(ctx context.Context, in CreateTagInput) (URN, error) {
	caller, err := s.require(ctx, URN{}, PrivCreateTags, PrivManageTags)
	if err != nil {
		return URN{}, err
	}
	id := in.ID
	if id == "" {
		id = uuid.NewString()
	}
	if strings.TrimSpace(in.Name) == "" {
		return URN{}, Errorf(EBADREQUEST, "tag name must not be empty")
	}
	if len(id) > 256 || strings.ContainsAny(id, ":,()/ \t\r\n") {
		return URN{}, Errorf(EBADREQUEST, "tag id %q must be at most 256 characters with no ':', ',', '(', ')', '/' or spaces", Truncate(id, 100))
	}
	urn := URN{EntityType: EntityTag, ID: id}
	key, err := s.newAspect(caller, urn, AspectTagKey, map[string]string{"name": id})
	if err != nil {
		return URN{}, err
	}
	props, err := s.newAspect(caller, urn, AspectTagProperties, tagProperties{Name: in.Name, Description: in.Description})
	if err != nil {
		return URN{}, err
	}
	if err := s.store.CreateEntity(ctx, []Aspect{key, props}); err != nil {
		if ErrorCodeOf(err) == ECONFLICT {
			return URN{}, &Error{Code: EBADREQUEST, Message: TagExistsMessage}
		}
		return URN{}, err
	}
	return urn, nil
}

// Tag returns the tag at urn, nil when there is none.
func (s *Service) Tag(ctx context.Context, rawURN string) (*Tag, error) {
	if _, err := s.actor(ctx); err != nil {
		return nil, err
	}
	urn, err := ParseURN(rawURN)
	if err != nil {
		return nil, err
	}
	if urn.EntityType != EntityTag {
		return nil, Errorf(EBADREQUEST, "%s is not a tag urn", urn)
	}
	aspects, err := s.store.Aspects(Metered(ctx), urn)
	if err != nil {
		return nil, err
	}
	if len(aspects) == 0 {
		return nil, nil
	}
	t := &Tag{URN: urn, Name: urn.ID}
	for _, a := range aspects {
		if a.Name != AspectTagProperties {
			continue
		}
		var p tagProperties
		if err := json.Unmarshal(a.Value, &p); err != nil {
			return nil, fmt.Errorf("decode %s of %s: %w", a.Name, urn, err)
		}
		t.Name, t.Description = p.Name, p.Description
	}
	return t, nil
}

// DeleteTag needs MANAGE_TAGS, or DELETE_ENTITY on the tag.
func (s *Service) DeleteTag(ctx context.Context, rawURN string) (bool, error) {
	urn, err := ParseURN(rawURN)
	if err != nil {
		return false, err
	}
	if urn.EntityType != EntityTag {
		return false, Errorf(EBADREQUEST, "%s is not a tag urn", urn)
	}
	caller, err := s.actor(ctx)
	if err != nil {
		return false, err
	}
	ok, err := s.can(ctx, caller, URN{}, PrivManageTags)
	if err != nil {
		return false, err
	}
	if !ok {
		if ok, err = s.can(ctx, caller, urn, PrivDeleteEntity); err != nil {
			return false, err
		}
	}
	if !ok {
		return false, ErrUnauthorized
	}
	found, err := s.store.DeleteEntity(ctx, urn)
	if err != nil {
		return false, err
	}
	if !found {
		return false, Errorf(ENOTFOUND, "tag %s does not exist", urn)
	}
	return true, nil
}
