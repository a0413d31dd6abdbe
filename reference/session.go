package reference

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"golang.org/x/crypto/bcrypt"
)

// Browser sessions (SPEC.md, Browser pages). A user signs in to the frontend
// with a username and password; the frontend keeps the session token in an
// HttpOnly cookie and sends it to the metadata service as a bearer token,
// where it is authorized exactly like that user's personal access token.
//
// A session token is a JWT of type SESSION, as DataHub's frontend gets one
// from its metadata service, and, unlike DataHub's, it is also on record:
// signing out deletes the record, and from then on the token is refused on
// every replica, whatever its expiry says.

// TokenTypeSession is the type of a browser session's token.
const TokenTypeSession = "SESSION"

// DefaultSessionLifetime is how long a session lasts unless the Config says
// otherwise: a day, as DataHub's frontend session.
const DefaultSessionLifetime = 24 * time.Hour

// Session is a browser session as the store keeps it: never the token, only
// its id (TokenID: the hash of the token and the salt).
type Session struct {
	ID        string
	ActorURN  string // the user's URN, as written
	CreatedAt time.Time
	ExpiresAt time.Time
}

// SessionStore keeps sessions. Store implementations provide it.
type SessionStore interface {
	// CreateSession records a session while its user (ActorURN) exists;
	// ENOTFOUND, and nothing recorded, when the user does not.
	CreateSession(ctx context.Context, s Session) error
	// Session returns the session with id; ENOTFOUND when there is none.
	Session(ctx context.Context, id string) (Session, error)
	// DeleteSession removes the session with id, if there is one, and every
	// expired session.
	DeleteSession(ctx context.Context, id string) error
	// EndSessions removes the sessions of the user actorURN but the keep
	// newest (all of them when keep is 0).
	EndSessions(ctx context.Context, actorURN string, keep int) error
}

// DefaultMaxSessionsPerUser is how many sessions one user may hold at once
// unless the Config says otherwise; signing in once more ends the oldest.
const DefaultMaxSessionsPerUser = 100

// Passwords are bcrypt hashes; bcrypt reads at most 72 bytes, so a longer
// password is refused rather than cut.
const maxPasswordBytes = 72

// credentials is the corpUserCredentials aspect: the password's bcrypt hash
// and, while one is outstanding, the SHA-256 of a password reset token.
type credentials struct {
	HashedPassword string `json:"hashedPassword,omitempty"`
	// PasswordResetToken is the base64 SHA-256 of the reset token.
	PasswordResetToken                     string `json:"passwordResetToken,omitempty"`
	PasswordResetTokenExpirationTimeMillis int64  `json:"passwordResetTokenExpirationTimeMillis,omitempty"`
}

// resetTokenLifetime is how long a password reset token works: a day, as
// DataHub's NativeUserService.
const resetTokenLifetime = 24 * time.Hour

// errBadCredentials is the one answer to a failed sign-in: it never says
// whether the username or the password was wrong.
var errBadCredentials = Errorf(EUNAUTHENTICATED, "Invalid credentials: the username or the password is wrong.")

// usernameURN is the URN of the user called username, when that is a
// username at all.
func usernameURN(username string) (URN, bool) {
	urn, err := ParseURN(UserURN(username).String())
	return urn, err == nil
}

// SignIn checks username and password and opens a session: it returns the
// session token (shown to the browser once, in a cookie) and the session.
// Any failure (no such user, no password, a wrong one, a suspended user) is
// the same EUNAUTHENTICATED, saying nothing of which. Every sign-in goes
// through here, whatever page or API it comes from, and so is throttled
// here: after too many failures for the username, or from the client the
// context names, an attempt is refused with ETOOMANYREQUESTS before any
// password is compared (throttle.go).
func (s *Service) SignIn(ctx context.Context, username, password string) (_ string, _ Session, err error) {
	client, _ := ClientFromContext(ctx)
	urn, ok := usernameURN(username)
	user := ""
	if ok {
		user = urn.String()
	}
	settle, refused := s.throttle.admit(user, client.Addr, s.cfg.Now())
	if refused != nil {
		return "", Session{}, refused
	}
	defer func() {
		switch {
		case err == nil:
			settle(signedIn)
		case ErrorCodeOf(err) == EUNAUTHENTICATED:
			settle(wrongCredentials)
		default:
			settle(notJudged)
		}
	}()
	if !ok {
		return "", Session{}, errBadCredentials
	}
	cred, err := s.credentials(ctx, urn)
	if err != nil {
		return "", Session{}, err
	}
	hash := []byte(cred.HashedPassword)
	if len(hash) == 0 {
		hash = s.noPasswordHash()
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(password)) != nil || cred.HashedPassword == "" {
		return "", Session{}, errBadCredentials
	}
	u, err := s.user(ctx, urn)
	if err != nil {
		return "", Session{}, err
	}
	if u == nil || u.Suspended {
		return "", Session{}, errBadCredentials
	}
	now := s.cfg.Now()
	lifetime := s.cfg.SessionLifetime
	if lifetime <= 0 {
		lifetime = DefaultSessionLifetime
	}
	raw, err := s.cfg.Codec.Sign(TokenClaims{Type: TokenTypeSession, ActorID: urn.ID, JTI: uuid.NewString(), IssuedAt: now, ExpiresAt: now.Add(lifetime)})
	if err != nil {
		return "", Session{}, fmt.Errorf("sign session: %w", err)
	}
	// The record's dates are whole milliseconds, as the store keeps them.
	sess := Session{ID: TokenID(raw, s.cfg.Salt), ActorURN: urn.String(), CreatedAt: now.Truncate(time.Millisecond), ExpiresAt: now.Add(lifetime).Truncate(time.Millisecond)}
	if err := s.store.CreateSession(ctx, sess); err != nil {
		if isNotFound(err) {
			return "", Session{}, errBadCredentials // removed meanwhile
		}
		return "", Session{}, err
	}
	keep := s.cfg.MaxSessionsPerUser
	if keep <= 0 {
		keep = DefaultMaxSessionsPerUser
	}
	if err := s.store.EndSessions(ctx, sess.ActorURN, keep); err != nil {
		return "", Session{}, err
	}
	return raw, sess, nil
}

// IsSessionToken says whether raw is a browser session's token, signed by
// this service: what a session cookie may hold. A personal access token is
// not one, and a cookie holding it is no session. (Whether the session is
// still on record is Authenticate's to say.)
func (s *Service) IsSessionToken(raw string) bool {
	claims, err := s.cfg.Codec.Verify(raw)
	return err == nil && claims.Type == TokenTypeSession
}

// SignOut ends the session of raw: its token is refused from then on. A
// token that is no session, or one that ended already, is no error.
func (s *Service) SignOut(ctx context.Context, raw string) error {
	claims, err := s.cfg.Codec.Verify(raw)
	if err != nil || claims.Type != TokenTypeSession {
		return nil
	}
	return s.store.DeleteSession(ctx, TokenID(raw, s.cfg.Salt))
}

// session checks that the session token raw, of claims, is on record, for
// that actor and not expired.
func (s *Service) session(ctx context.Context, raw string, actor URN) error {
	sess, err := s.store.Session(ctx, TokenID(raw, s.cfg.Salt))
	if err != nil {
		return err
	}
	if sess.ActorURN != actor.String() || !s.cfg.Now().Before(sess.ExpiresAt) {
		return Errorf(ENOTFOUND, "no such session")
	}
	return nil
}

// PrivManageUserCredentials lets its holder make password reset tokens
// (DataHub's "Manage User Credentials").
const PrivManageUserCredentials = "MANAGE_USER_CREDENTIALS"

// CreateNativeUserResetToken makes a password reset token for the native
// user at rawURN, as DataHub's createNativeUserResetToken: the caller needs
// MANAGE_USER_CREDENTIALS, and the user must have a password already (a
// native user, who signed up: NativeUserService refuses anyone else). The
// token is returned here only; the user sets a new password with it
// (ResetNativeUserCredentials) within a day, once. A new token replaces
// the one before.
func (s *Service) CreateNativeUserResetToken(ctx context.Context, rawURN string) (string, error) {
	urn, err := ParseURN(rawURN)
	if err != nil {
		return "", err
	}
	caller, err := s.require(ctx, URN{}, PrivManageUserCredentials)
	if err != nil {
		return "", err
	}
	if urn.EntityType != EntityCorpUser {
		return "", Errorf(EBADREQUEST, "%s is not a corpuser urn", urn)
	}
	if urn == RootUser || urn == SystemUser {
		// DataHub's root user signs in with the frontend's own password
		// (user.props), not as a native user: NativeUserService finds no
		// credentials and refuses. Whoever may make reset tokens may not
		// choose the password of the user who holds every privilege.
		return "", Errorf(EBADREQUEST, "%s is not a native user: reset tokens are only for users who signed up", urn)
	}
	u, err := s.user(ctx, urn)
	if err != nil {
		return "", err
	}
	if u == nil {
		return "", Errorf(EBADREQUEST, "user %s does not exist", urn)
	}
	cred, err := s.credentials(ctx, urn)
	if err != nil {
		return "", err
	}
	if cred.HashedPassword == "" {
		return "", Errorf(EBADREQUEST, "user %s has no password: reset tokens are only for native users, who signed up with one", urn)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	cred.PasswordResetToken = secretHash(token)
	cred.PasswordResetTokenExpirationTimeMillis = s.cfg.Now().Add(resetTokenLifetime).UnixMilli()
	if err := s.writeCredentials(ctx, caller, urn, cred); err != nil {
		return "", err
	}
	return token, nil
}

// ResetNativeUserCredentials sets the password of username with a reset
// token from CreateNativeUserResetToken, as DataHub's frontend
// /resetNativeUserCredentials. The token works once, however many
// requests send it at once. A wrong, used or
// expired token, or no such user, is EBADREQUEST with one message. Every
// session of the user ends; the user's personal access tokens stay.
func (s *Service) ResetNativeUserCredentials(ctx context.Context, username, password, resetToken string) error {
	if password == "" {
		return Errorf(EBADREQUEST, "Password must not be empty.")
	}
	if len(password) > maxPasswordBytes {
		return Errorf(EBADREQUEST, "Password must be at most %d bytes long.", maxPasswordBytes)
	}
	refused := Errorf(EBADREQUEST, "Invalid reset token. Please ask your administrator for a new one.")
	urn, ok := usernameURN(username)
	if !ok || resetToken == "" {
		return refused
	}
	cred, err := s.credentials(ctx, urn)
	if err != nil {
		return err
	}
	if cred.PasswordResetToken == "" || subtle.ConstantTimeCompare([]byte(cred.PasswordResetToken), []byte(secretHash(resetToken))) != 1 {
		return refused
	}
	if s.cfg.Now().UnixMilli() > cred.PasswordResetTokenExpirationTimeMillis {
		return refused
	}
	hash, err := s.hashPassword(password)
	if err != nil {
		return fmt.Errorf("hash password: %w", err)
	}
	// A new password ends every session the old one opened: before the
	// password changes, and again after, for a sign-in with the old one
	// that came in between. Personal access tokens stay: each is a
	// credential of its own, listed and revoked one by one.
	if err := s.store.EndSessions(ctx, urn.String(), 0); err != nil {
		return err
	}
	// Spent at once: the new password is written only while the stored
	// reset token is still the one sent, in one statement, so that of
	// requests that race with it one sets a password.
	a, err := s.newAspect(Actor{URN: urn}, urn, AspectCorpUserCredentials, credentials{HashedPassword: string(hash)})
	if err != nil {
		return err
	}
	spent, err := s.store.ReplaceAspectIf(ctx, a, "passwordResetToken", cred.PasswordResetToken)
	if err != nil {
		return err
	}
	if !spent {
		return refused
	}
	// The reset token proved who this is: the wrong passwords tried for
	// the user before no longer count.
	s.throttle.forget(urn.String())
	return s.store.EndSessions(ctx, urn.String(), 0)
}

// credentials reads a user's corpUserCredentials; none is an empty value.
func (s *Service) credentials(ctx context.Context, urn URN) (credentials, error) {
	a, err := s.store.Aspect(ctx, urn, AspectCorpUserCredentials)
	if isNotFound(err) {
		return credentials{}, nil
	}
	if err != nil {
		return credentials{}, err
	}
	var c credentials
	if err := json.Unmarshal(a.Value, &c); err != nil {
		return credentials{}, fmt.Errorf("decode credentials of %s: %w", urn, err)
	}
	return c, nil
}

func (s *Service) writeCredentials(ctx context.Context, by Actor, urn URN, c credentials) error {
	a, err := s.newAspect(by, urn, AspectCorpUserCredentials, c)
	if err != nil {
		return err
	}
	return s.store.UpsertAspect(ctx, a)
}
