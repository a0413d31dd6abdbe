package reference

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Config is what the Service needs from its operator.
type Config struct {
	AuthEnabled bool
	Codec       TokenCodec
	Salt        []byte
	Now         func() time.Time // nil means time.Now
	// SessionLifetime is how long a browser session lasts (0 means
	// DefaultSessionLifetime).
	SessionLifetime time.Duration
	// MaxTokensPerUser bounds the unexpired tokens one user may own (0
	// means DefaultMaxTokensPerUser); see CreateAccessToken.
	MaxTokensPerUser int
	// MaxSessionsPerUser bounds the sessions one user holds at once (0
	// means DefaultMaxSessionsPerUser); see SignIn.
	MaxSessionsPerUser int
	// SignInThrottle is how failed sign-ins are throttled (throttle.go).
	SignInThrottle ThrottleConfig
	Logger         *slog.Logger // nil means slog.Default()
	// PolicyRefresh, for conformance testing only, makes the Service
	// judge requests on the active policies as RefreshPolicies last read
	// them, every PolicyRefresh, as DataHub's authorizer does: a policy
	// change then takes effect at the next refresh (search-backed, so a
	// new policy waits for the store's search lag too). Zero: every
	// request is judged on the policies as they are.
	PolicyRefresh time.Duration
	// PasswordCost is the bcrypt cost of the passwords stored (0 means
	// bcrypt.DefaultCost, 10). Lower, down to bcrypt.MinCost, for
	// conformance testing only: a run of the suite sets some 200
	// passwords and checks as many, which at the default cost take most
	// of the reference's CPU. (DataHub's native users' passwords are a
	// salted SHA-256.)
	PasswordCost int
	// RefuseNoExpiry refuses createAccessToken for a token that never
	// expires (NO_EXPIRY) as a bad request, as DataHub does unless
	// ACCESS_TOKEN_ALLOW_NO_EXPIRY is true (datahub-project/datahub PR
	// #19222; releases before it made such tokens). The operator's own
	// MintAccessToken (`catalogd token create`) is not bound by it.
	RefuseNoExpiry bool
}

// Service applies the contract's rules on top of a Store. Transports call it
// with an Actor in the context; it decides what that actor may do, on the
// policies as they are at that moment.
type Service struct {
	store Store
	cfg   Config

	// policies is the active policies, decoded and indexed, as of the
	// store's version polVersion; kept only when the store is Versioned.
	polMu      sync.Mutex
	policies   *policyIndex
	polVersion uint64
	// users and tokens are users and token records as decoded, kept like
	// the policies while the store's version of their type holds.
	users  memo[userRecord]
	tokens memo[AccessTokenInfo]
	// refreshed is, with Config.PolicyRefresh, the active policies as the
	// last refresh read them; nil until first needed.
	refreshed atomic.Pointer[policyIndex]
	// noPasswordHash is what a sign-in for a user without a password is
	// compared against.
	noPasswordHash func() []byte
	// throttle counts failed sign-ins (throttle.go).
	throttle *signInThrottle
}

// userRecord is a user as read, or that there is none.
type userRecord struct {
	user  CorpUser
	found bool
}

// memo keeps values derived from a Versioned store's entities of one type,
// all from one version of them: a value derived at an older version is not
// kept, and a newer version empties the memo. Past maxMemo entries it
// starts over.
type memo[V any] struct {
	mu      sync.Mutex
	version uint64
	m       map[string]V
}

const maxMemo = 100_000

func (m *memo[V]) get(key string, version uint64) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[key]
	if !ok || m.version != version {
		var zero V
		return zero, false
	}
	return v, true
}

func (m *memo[V]) put(key string, version uint64, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if version < m.version {
		return
	}
	if version > m.version || m.m == nil || len(m.m) >= maxMemo {
		m.m, m.version = map[string]V{}, version
	}
	m.m[key] = v
}

// version is the store's version of entityType when it is Versioned and
// trusted; ok is false otherwise, and nothing may be kept.
func (s *Service) version(entityType string) (v uint64, ok bool) {
	if versioned, is := s.store.(Versioned); is {
		return versioned.Version(entityType)
	}
	return 0, false
}

// Versioned is a Store that can say, without a round trip, whether what it
// holds of an entity type may have changed: a Service keeps what it derived
// from them (the policies, decoded and indexed) while the version stays the
// same and the store says it can be trusted.
type Versioned interface {
	Version(entityType string) (version uint64, trusted bool)
}

// NewService returns a Service over store.
func NewService(store Store, cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.PasswordCost == 0 {
		cfg.PasswordCost = bcrypt.DefaultCost
	}
	s := &Service{store: store, cfg: cfg, throttle: newSignInThrottle(cfg.SignInThrottle)}
	// Compared against when a user has no password, so that a sign-in
	// takes as long whether or not the username exists: at this
	// Service's cost.
	s.noPasswordHash = sync.OnceValue(func() []byte {
		h, _ := bcrypt.GenerateFromPassword([]byte("catalogd: no password"), cfg.PasswordCost)
		return h
	})
	return s
}

// hashPassword is the bcrypt hash of a password, at the configured cost.
func (s *Service) hashPassword(password string) ([]byte, error) {
	return bcrypt.GenerateFromPassword([]byte(password), s.cfg.PasswordCost)
}

// AuthEnabled reports whether requests need a token.
func (s *Service) AuthEnabled() bool { return s.cfg.AuthEnabled }

// AllowsNoExpiry says whether createAccessToken makes tokens that never
// expire.
func (s *Service) AllowsNoExpiry() bool { return !s.cfg.RefuseNoExpiry }

// Aspect names the reference reads and writes itself.
const (
	AspectCorpUserKey         = "corpUserKey"
	AspectCorpUserInfo        = "corpUserInfo"
	AspectCorpUserStatus      = "corpUserStatus"
	AspectCorpUserCredentials = "corpUserCredentials"
	AspectTagKey              = "tagKey"
	AspectTagProperties       = "tagProperties"
	AspectPolicyKey           = "dataHubPolicyKey"
	AspectPolicyInfo          = "dataHubPolicyInfo"
	AspectAccessTokenKey      = "dataHubAccessTokenKey"
	AspectAccessTokenInfo     = "dataHubAccessTokenInfo"
)

func (s *Service) actor(ctx context.Context) (Actor, error) {
	a, ok := ActorFromContext(ctx)
	if !ok {
		return Actor{}, Errorf(EUNAUTHENTICATED, "authentication required")
	}
	return a, nil
}

// activePolicies returns the ACTIVE policies as they are now, indexed by
// whom they name.
func (s *Service) activePolicies(ctx context.Context) (*policyIndex, error) {
	if s.cfg.PolicyRefresh > 0 {
		return s.refreshedPolicies(ctx)
	}
	versioned, _ := s.store.(Versioned)
	var (
		version uint64
		trusted bool
	)
	if versioned != nil {
		version, trusted = versioned.Version(EntityPolicy)
		s.polMu.Lock()
		ix, v := s.policies, s.polVersion
		s.polMu.Unlock()
		if trusted && ix != nil && v == version {
			return ix, nil
		}
	}
	ix, err := s.loadPolicies(ctx, Filter{
		EntityType: EntityPolicy, Aspect: AspectPolicyInfo,
		Where: map[string][]string{"state": {PolicyActive}},
	})
	if err != nil {
		return nil, err
	}
	if trusted {
		// version was read before the policies: a change made meanwhile
		// has moved the store's version on, and the next call reloads.
		s.polMu.Lock()
		s.policies, s.polVersion = ix, version
		s.polMu.Unlock()
	}
	return ix, nil
}

// loadPolicies reads the policies f lists and indexes the ACTIVE ones.
func (s *Service) loadPolicies(ctx context.Context, f Filter) (*policyIndex, error) {
	aspects, _, err := s.store.ListAspects(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]Policy, 0, len(aspects))
	for _, a := range aspects {
		p, err := decodePolicy(a)
		if err != nil {
			return nil, err
		}
		if p.State == PolicyActive {
			out = append(out, p)
		}
	}
	return newPolicyIndex(out), nil
}

// refreshedPolicies are the active policies as the last refresh read them;
// the first call reads them itself (as they are: the index of a store that
// starts is built from what it holds).
func (s *Service) refreshedPolicies(ctx context.Context) (*policyIndex, error) {
	if ix := s.refreshed.Load(); ix != nil {
		return ix, nil
	}
	ix, err := s.loadPolicies(ctx, Filter{EntityType: EntityPolicy, Aspect: AspectPolicyInfo})
	if err != nil {
		return nil, err
	}
	s.refreshed.CompareAndSwap(nil, ix)
	return s.refreshed.Load(), nil
}

// RefreshPolicies, with Config.PolicyRefresh set, reads the policies anew
// every PolicyRefresh until ctx ends, as DataHub's authorizer does
// (DataHubAuthorizer's PolicyRefreshRunnable, scheduled at a fixed rate of
// POLICY_CACHE_REFRESH_INTERVAL_SECONDS): through the search-backed listing
// (PolicyFetcher scrolls the search index, then reads each policy), each
// instance on its own schedule. A refresh that fails keeps the policies it
// had until the next one, as DataHub's does.
func (s *Service) RefreshPolicies(ctx context.Context) {
	if s.cfg.PolicyRefresh <= 0 {
		return
	}
	tick := time.NewTicker(s.cfg.PolicyRefresh)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		ix, err := s.loadPolicies(ctx, Filter{EntityType: EntityPolicy, Aspect: AspectPolicyInfo, Search: true})
		if err != nil {
			if ctx.Err() == nil {
				s.cfg.Logger.WarnContext(ctx, "refreshing the policies failed: keeping the last ones until the next refresh", "error", err)
			}
			continue
		}
		s.refreshed.Store(ix)
	}
}

// policyIndex is a set of active policies indexed by the users they name,
// so that evaluating a request costs what the policies that can apply to
// its caller cost, however many name others.
type policyIndex struct {
	byUser   map[string][]Policy
	allUsers []Policy
	// platform holds, by user URN, the platform privileges each user asked
	// about holds under these policies (platformFor). An index is never
	// changed once built: a change of the policies builds another, with
	// nothing remembered.
	platform  sync.Map // string → PlatformPrivilegeSet
	platformN atomic.Int32
}

// maxPlatformMemo bounds the users an index remembers the platform
// privileges of; past it they are worked out on each request.
const maxPlatformMemo = 4096

// platformFor is the platform privileges user holds under ix: holds'
// answer for PlatformPrivileges and no resource, worked out once per index.
// The set is shared: callers only read it.
func (ix *policyIndex) platformFor(user URN) PlatformPrivilegeSet {
	key := user.String()
	if v, ok := ix.platform.Load(key); ok {
		return v.(PlatformPrivilegeSet)
	}
	held := make(PlatformPrivilegeSet, len(PlatformPrivileges))
	ix.naming(user, func(p Policy) {
		for _, priv := range PlatformPrivileges {
			if p.Grants(user, priv, URN{}) {
				held[priv] = true
			}
		}
	})
	if ix.platformN.Load() < maxPlatformMemo {
		if _, loaded := ix.platform.LoadOrStore(key, held); !loaded {
			ix.platformN.Add(1)
		}
	}
	return held
}

func newPolicyIndex(ps []Policy) *policyIndex {
	ix := &policyIndex{byUser: map[string][]Policy{}}
	for _, p := range ps {
		if p.Actors.AllUsers {
			ix.allUsers = append(ix.allUsers, p)
			continue
		}
		for _, u := range slices.Compact(slices.Sorted(slices.Values(p.Actors.Users))) {
			ix.byUser[u] = append(ix.byUser[u], p)
		}
	}
	return ix
}

// naming calls f with every policy that can apply to user.
func (ix *policyIndex) naming(user URN, f func(Policy)) {
	for _, p := range ix.allUsers {
		f(p)
	}
	for _, p := range ix.byUser[user.String()] {
		f(p)
	}
}

// can reports whether actor holds one of privileges on resource (zero for
// platform privileges) under the policies as they are now.
func (s *Service) can(ctx context.Context, a Actor, resource URN, privileges ...string) (bool, error) {
	held, err := s.holds(ctx, a, resource, privileges...)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(privileges, func(p string) bool { return held[p] }), nil
}

// holds reads the policies once and says which of privileges actor holds on
// resource (zero for platform privileges).
func (s *Service) holds(ctx context.Context, a Actor, resource URN, privileges ...string) (map[string]bool, error) {
	held := make(map[string]bool, len(privileges))
	if a.System {
		for _, p := range privileges {
			held[p] = true
		}
		return held, nil
	}
	policies, err := s.activePolicies(ctx)
	if err != nil {
		return nil, err
	}
	policies.naming(a.URN, func(p Policy) {
		for _, priv := range privileges {
			if p.Grants(a.URN, priv, resource) {
				held[priv] = true
			}
		}
	})
	return held, nil
}

// allPlatformPrivileges is what the system actor holds.
var allPlatformPrivileges = func() PlatformPrivilegeSet {
	all := PlatformPrivilegeSet{}
	for _, p := range PlatformPrivileges {
		all[p] = true
	}
	return all
}()

// platformPrivileges is the platform privileges a holds, as holds says
// (with PlatformPrivileges and no resource), from the policies as they are
// now. The set is shared: callers only read it.
func (s *Service) platformPrivileges(ctx context.Context, a Actor) (PlatformPrivilegeSet, error) {
	if a.System {
		return allPlatformPrivileges, nil
	}
	policies, err := s.activePolicies(ctx)
	if err != nil {
		return nil, err
	}
	return policies.platformFor(a.URN), nil
}

// require returns ErrUnauthorized unless the caller holds one of privileges.
func (s *Service) require(ctx context.Context, resource URN, privileges ...string) (Actor, error) {
	a, err := s.actor(ctx)
	if err != nil {
		return Actor{}, err
	}
	ok, err := s.can(ctx, a, resource, privileges...)
	if err != nil {
		return Actor{}, err
	}
	if !ok {
		return Actor{}, ErrUnauthorized
	}
	return a, nil
}

// PlatformPrivilegeSet is what `me.platformPrivileges` reports: the
// platform privileges the caller holds, by name.
type PlatformPrivilegeSet map[string]bool

// CanCreateTags says whether the holder may create tags: CREATE_TAGS or
// MANAGE_TAGS, as createTag checks and as DataHub's
// AuthorizationUtils.canCreateTags, from which its MeResolver reports
// createTags.
func (p PlatformPrivilegeSet) CanCreateTags() bool {
	return p[PrivCreateTags] || p[PrivManageTags]
}

// Me returns the caller and their platform privileges.
func (s *Service) Me(ctx context.Context) (*CorpUser, PlatformPrivilegeSet, error) {
	a, err := s.actor(ctx)
	if err != nil {
		return nil, nil, err
	}
	privs, err := s.platformPrivileges(ctx, a)
	if err != nil {
		return nil, nil, err
	}
	if a.System {
		return &CorpUser{URN: a.URN, Username: a.URN.ID, Active: true}, privs, nil
	}
	u, err := s.user(ctx, a.URN)
	if err != nil {
		return nil, nil, err
	}
	if u == nil {
		return nil, nil, Errorf(ENOTFOUND, "user %s does not exist", a.URN)
	}
	return u, privs, nil
}

// CorpUser is a user as GraphQL shows it.
type CorpUser struct {
	URN         URN
	Username    string
	Active      bool
	DisplayName string
	Email       string
	FullName    string
	Title       string
	// Manager is the user's manager (corpUserInfo's managerUrn); zero when
	// there is none, or when what is stored is not a user's URN.
	Manager   URN
	Suspended bool
}

type corpUserInfo struct {
	Active      bool   `json:"active"`
	DisplayName string `json:"displayName,omitempty"`
	Email       string `json:"email,omitempty"`
	FullName    string `json:"fullName,omitempty"`
	Title       string `json:"title,omitempty"`
	ManagerURN  string `json:"managerUrn,omitempty"`
}

type corpUserStatus struct {
	Status string `json:"status"`
}

// user loads a user, nil when there is none.
func (s *Service) user(ctx context.Context, urn URN) (*CorpUser, error) {
	if urn.EntityType != EntityCorpUser {
		return nil, nil
	}
	version, keep := s.version(EntityCorpUser)
	if keep {
		if r, ok := s.users.get(urn.String(), version); ok {
			if !r.found {
				return nil, nil
			}
			u := r.user
			return &u, nil
		}
	}
	u, err := s.readUser(ctx, urn)
	if err == nil && keep {
		r := userRecord{found: u != nil}
		if u != nil {
			r.user = *u
		}
		s.users.put(urn.String(), version, r)
	}
	return u, err
}

// readUser reads a user from the store, nil when there is none.
func (s *Service) readUser(ctx context.Context, urn URN) (*CorpUser, error) {
	aspects, err := s.store.Aspects(ctx, urn)
	if err != nil {
		return nil, err
	}
	// A user is there while its key aspect is: without it the other
	// aspects are leftovers, and a token of the user acts for no one.
	keyed := false
	for _, a := range aspects {
		keyed = keyed || a.Name == AspectCorpUserKey
	}
	if !keyed {
		return nil, nil
	}
	u := &CorpUser{URN: urn, Username: urn.ID}
	for _, a := range aspects {
		switch a.Name {
		case AspectCorpUserInfo:
			var info corpUserInfo
			if err := json.Unmarshal(a.Value, &info); err != nil {
				return nil, fmt.Errorf("decode %s of %s: %w", a.Name, urn, err)
			}
			u.Active, u.DisplayName, u.Email, u.FullName, u.Title = info.Active, info.DisplayName, info.Email, info.FullName, info.Title
			if m, err := ParseURN(info.ManagerURN); err == nil && m.EntityType == EntityCorpUser {
				u.Manager = m
			}
		case AspectCorpUserStatus:
			var st corpUserStatus
			if err := json.Unmarshal(a.Value, &st); err != nil {
				return nil, fmt.Errorf("decode %s of %s: %w", a.Name, urn, err)
			}
			u.Suspended = strings.EqualFold(st.Status, "SUSPENDED")
		}
	}
	return u, nil
}

// CorpUser returns the user at urn, nil when there is none.
func (s *Service) CorpUser(ctx context.Context, rawURN string) (*CorpUser, error) {
	if _, err := s.actor(ctx); err != nil {
		return nil, err
	}
	urn, err := ParseURN(rawURN)
	if err != nil {
		return nil, err
	}
	if urn.EntityType != EntityCorpUser {
		return nil, Errorf(EBADREQUEST, "%s is not a corpuser urn", urn)
	}
	return s.user(ctx, urn)
}

// Authenticate turns a raw bearer token into the actor it stands for, or
// EUNAUTHENTICATED. The token (a personal access token, or a browser
// session's) must verify, still be on record (revocation and signing out
// delete the record), not be expired, and belong to a user who exists and is
// not suspended.
func (s *Service) Authenticate(ctx context.Context, raw string) (Actor, error) {
	claims, err := s.cfg.Codec.Verify(raw)
	if err != nil {
		s.cfg.Logger.DebugContext(ctx, "token rejected", "reason", err)
		return Actor{}, invalidToken()
	}
	actor := UserURN(claims.ActorID)
	if claims.Type == TokenTypeSession {
		if err := s.session(ctx, raw, actor); err != nil {
			if isNotFound(err) {
				return Actor{}, invalidToken()
			}
			return Actor{}, err
		}
	} else {
		info, err := s.tokenInfo(ctx, TokenID(raw, s.cfg.Salt))
		if err != nil {
			if isNotFound(err) {
				return Actor{}, invalidToken()
			}
			return Actor{}, err
		}
		if info.ActorURN != actor.String() || info.Expired(s.cfg.Now()) {
			return Actor{}, invalidToken()
		}
	}
	u, err := s.user(ctx, actor)
	if err != nil {
		return Actor{}, err
	}
	if u == nil || u.Suspended {
		return Actor{}, invalidToken()
	}
	return Actor{URN: actor}, nil
}

// invalidToken is Authenticate's refusal, made only when it refuses.
func invalidToken() *Error { return Errorf(EUNAUTHENTICATED, "invalid or expired token") }

// ActorFor returns the actor an auth-disabled request runs as: the user
// named by X-DataHub-Actor, checked normally, or else the system actor.
func (s *Service) ActorFor(ctx context.Context, header string) (Actor, error) {
	if header == "" {
		return Actor{URN: SystemUser, System: true}, nil
	}
	urn, err := ParseURN(header)
	if err != nil {
		return Actor{}, err
	}
	if urn.EntityType != EntityCorpUser {
		return Actor{}, Errorf(EBADREQUEST, "X-DataHub-Actor must be a corpuser urn")
	}
	u, err := s.user(ctx, urn)
	if err != nil {
		return Actor{}, err
	}
	if u == nil || u.Suspended {
		// DataHub answers 403 "Actor is not active".
		return Actor{}, Errorf(EUNAUTHORIZED, "X-DataHub-Actor names no active user")
	}
	return Actor{URN: urn}, nil
}

func decodePolicy(a Aspect) (Policy, error) {
	var p Policy
	if err := json.Unmarshal(a.Value, &p); err != nil {
		return Policy{}, fmt.Errorf("decode policy %s: %w", a.URN, err)
	}
	p.URN = a.URN
	return p, nil
}

func (s *Service) newAspect(a Actor, urn URN, name string, v any) (Aspect, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Aspect{}, err
	}
	return Aspect{URN: urn, Name: name, Value: b, CreatedAt: s.cfg.Now(), CreatedBy: a.URN.String()}, nil
}

func isNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == ENOTFOUND
}
