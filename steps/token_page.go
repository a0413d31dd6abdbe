package steps

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/runner"
	"github.com/chromedp/chromedp"
)

// registerTokenPageSteps registers the steps of features/token_page.feature.
func registerTokenPageSteps(s stepRegistrar) {
	s.Step(`^`+who+` opens the access tokens page$`, opensTokensPage)
	s.Step(`^someone who is not signed in opens the access tokens page in a browser$`, strangerOpensTokensPage)
	s.Step(`^the page is titled "([^"]+)" with a "([^"]+)" section$`, pageTitled)
	s.Step(`^the "Generate new token" button is (enabled|disabled)$`, generateButtonIs)
	s.Step(`^the page says that `+who+` may not generate tokens$`, pageSaysMayNotGenerate)
	s.Step(`^the page says that token based authentication is disabled$`, pageSaysTokenAuthDisabled)
	s.Step(`^`+who+` (?:generates|has generated) a token in the page(?: that lasts (1 hour|1 day|1 week|1 month|3 months|6 months|1 year|Never))?$`, generatesToken)
	s.Step(`^the page shows the new token, with a warning that it will not be shown again$`, pageShowsNewToken)
	s.Step(`^the token shown works on the GraphQL endpoint as `+who+`$`, shownTokenWorksAs)
	s.Step(`^the token shown is refused$`, shownTokenRefused)
	s.Step(`^the token shown is described as expiring (.+) after it was made$`, shownTokenExpires)
	s.Step(`^`+who+` reloads the page$`, reloadsPage)
	s.Step(`^the page no longer shows the token$`, pageNoLongerShowsToken)
	s.Step(`^the page lists the token with its name and description$`, pageListsToken)
	s.Step(`^the page lists the token as expiring (a day after today|\d+ days after today|never)$`, pageListsExpiry)
	s.Step(`^the page no longer lists the token$`, pageNoLongerListsToken)
	s.Step(`^`+who+` (revokes the token in the page, confirming it|starts revoking the token in the page and cancels)$`, revokesInPage)
	s.Step(`^`+who+` opens the form that makes a token$`, opensTokenForm)
	s.Step(`^the form has no field that names a user$`, formNamesNoUser)
	s.Step(`^`+who+`'s browser sends the token form with a field naming `+who+` as the token's user$`, sendsFormNamingOther)
	s.Step(`^`+who+`'s browser sends the token form (without its CSRF token|with the CSRF token of `+who+`'s page)$`, sendsFormWithBadCSRF)
	s.Step(`^the page refuses the form$`, pageRefusesForm)
}

func opensTokensPage(ctx context.Context, name string) error {
	_, err := theWorld(ctx).openTokensPage(name)
	return err
}

func strangerOpensTokensPage(ctx context.Context) error {
	w := theWorld(ctx)
	b, err := w.browserOf("someone")
	if err != nil {
		return err
	}
	if err := b.Navigate(w.frontend() + tokensPath); err != nil {
		return w.uiFail(b, "opening the access tokens page: %v", err)
	}
	return nil
}

func pageTitled(ctx context.Context, title, section string) error {
	w := theWorld(ctx)
	b := w.current
	h1, err := text(b, "h1")
	if err != nil {
		return w.uiFail(b, "%v", err)
	}
	if h1 != title {
		return w.uiFail(b, "the page's title is %q, expected %q", h1, title)
	}
	var sections []string
	if err := b.Eval(`[...document.querySelectorAll("h2")].map(e => e.textContent.trim())`, &sections); err != nil {
		return w.uiFail(b, "%v", err)
	}
	if !slices.Contains(sections, section) {
		return w.uiFail(b, "the page has no %q section: its sections are %q", section, sections)
	}
	return nil
}

func generateButtonIs(ctx context.Context, state string) error {
	w := theWorld(ctx)
	b := w.current
	var button struct {
		Found    bool   `json:"found"`
		Text     string `json:"text"`
		Disabled bool   `json:"disabled"`
	}
	if err := b.Eval(`(() => { const e = document.querySelector('[data-testid="add-token-button"]');
		return e ? {found: true, text: e.textContent.trim(), disabled: e.disabled || e.getAttribute("aria-disabled") === "true"} : {found: false} })()`, &button); err != nil {
		return w.uiFail(b, "%v", err)
	}
	switch {
	case !button.Found:
		return w.uiFail(b, "the page has no add-token-button")
	case button.Text != "Generate new token":
		return w.uiFail(b, "the add-token-button says %q, expected \"Generate new token\"", button.Text)
	case button.Disabled != (state == "disabled"):
		return w.uiFail(b, "the \"Generate new token\" button is not %s", state)
	}
	if state == "disabled" {
		// Disabled means it does nothing: the form is not offered, and no
		// other page is asked for. A click that navigates makes the page
		// start to leave (pagehide, beforeunload) or change its address
		// before the tasks queued after the click have run; the check runs
		// after those, with no fixed pause.
		before := b.LoadCount()
		var left bool
		if err := b.Eval(`new Promise(done => {
			let leaving = false;
			const leave = () => { leaving = true };
			addEventListener("beforeunload", leave); addEventListener("pagehide", leave);
			const at = location.href;
			document.querySelector('[data-testid="add-token-button"]').click();
			setTimeout(() => requestAnimationFrame(() => setTimeout(() => done(leaving || location.href !== at), 0)), 0);
		})`, &left); err != nil && b.LoadCount() == before {
			return w.uiFail(b, "%v", err)
		}
		if left || b.LoadCount() != before {
			return w.uiFail(b, "clicking the disabled button loaded another page")
		}
		if ok, _ := exists(b, `[data-testid="create-token-form"]`); ok {
			return w.uiFail(b, "clicking the disabled button opened the form that makes a token")
		}
	}
	return nil
}

func pageSaysMayNotGenerate(ctx context.Context, _ string) error {
	w := theWorld(ctx)
	b := w.current
	msg, err := text(b, `[data-testid="token-privilege-message"]`)
	if err != nil {
		return w.uiFail(b, "%v", err)
	}
	if msg == "" {
		return w.uiFail(b, "the page does not say why tokens cannot be generated (data-testid=token-privilege-message)")
	}
	return nil
}

func pageSaysTokenAuthDisabled(ctx context.Context) error {
	w := theWorld(ctx)
	b := w.current
	msg, err := text(b, `[data-testid="token-auth-disabled-message"]`)
	if err != nil {
		return w.uiFail(b, "%v", err)
	}
	want := "Token based authentication is currently disabled"
	if !strings.Contains(msg, want) || !strings.Contains(strings.ToLower(msg), "administrator") {
		return w.uiFail(b, "the page says %q, expected that %s and to contact the administrator", msg, strings.ToLower(want))
	}
	return nil
}

func generatesToken(ctx context.Context, name, choice string) error {
	w := theWorld(ctx)
	b, err := w.openTokenForm(name)
	if err != nil {
		return err
	}
	if choice == "Never" {
		if offered, _ := exists(b, `[data-testid="token-duration-select"] option[value="NO_EXPIRY"]`); !offered {
			return w.neverNotOffered(b, name)
		}
	}
	t, err := w.fillTokenForm(b, w.person(name), choice)
	if err != nil {
		return err
	}
	if err := w.click(b, `[data-testid="create-token-button"]`, "Create"); err != nil {
		return err
	}
	return w.readShownToken(b, t)
}

func pageShowsNewToken(ctx context.Context) error {
	w := theWorld(ctx)
	b := w.current
	t, err := w.shownToken()
	if err != nil {
		return err
	}
	if !runner.JWTShape.MatchString(t.raw) {
		return w.uiFail(b, "the page shows a token that is not a JWT")
	}
	warning, err := text(b, `[data-testid="new-token-warning"]`)
	if err != nil {
		return w.uiFail(b, "%v", err)
	}
	if !strings.Contains(strings.ToLower(warning), "not be shown again") {
		return w.uiFail(b, "the page warns %q, expected that the token will not be shown again", warning)
	}
	if ok, _ := exists(b, `[data-testid="copy-token-button"]`); !ok {
		return w.uiFail(b, "the page has no control to copy the token (data-testid=copy-token-button)")
	}
	return nil
}

func shownTokenWorksAs(ctx context.Context, name string) error {
	w := theWorld(ctx)
	t, err := w.shownToken()
	if err != nil {
		return err
	}
	c := w.withToken("the token shown in the page", t.raw)
	return w.answerNames(w.askWhoAmI(c, c.gms+"/api/graphql"), w.person(name).urn)
}

func shownTokenRefused(ctx context.Context) error {
	w := theWorld(ctx)
	t, err := w.shownToken()
	if err != nil {
		return err
	}
	c := w.withToken("the token shown in the page", t.raw)
	a := w.askWhoAmI(c, c.gms+"/api/graphql")
	if a.status != http.StatusUnauthorized {
		return w.fail("%s answered status %d, expected 401 on the request right after the revocation", a.what, a.status)
	}
	return nil
}

func shownTokenExpires(ctx context.Context, length string) error {
	w := theWorld(ctx)
	t, err := w.shownToken()
	if err != nil {
		return err
	}
	a, meta, err := w.tokenMetadataOf(t.raw)
	if err != nil {
		return err
	}
	if meta == nil {
		return w.fail("%s found no token on record for the token shown", a.what)
	}
	if meta.Name != t.name || meta.ActorURN != t.owner.urn || meta.OwnerURN != t.owner.urn {
		return w.fail("the token shown is described as %q for %s made by %s, expected %q for and by %s", meta.Name, meta.ActorURN, meta.OwnerURN, t.name, t.owner.urn)
	}
	if length == "never" {
		if meta.ExpiresAt != nil {
			return w.fail("the token shown expires at %d, expected no expiry", *meta.ExpiresAt)
		}
		return nil
	}
	want, ok := expiryLengths[length]
	if !ok {
		return w.fail("unknown length %q", length)
	}
	if meta.ExpiresAt == nil {
		return w.fail("the token shown has no expiry, expected %s after it was made", length)
	}
	if got := time.Duration(*meta.ExpiresAt-meta.CreatedAt) * time.Millisecond; got != want {
		return w.fail("the token shown expires %s after it was made, expected %s", got, want)
	}
	return nil
}

func reloadsPage(ctx context.Context, name string) error {
	w := theWorld(ctx)
	b, err := w.browserOf(name)
	if err != nil {
		return err
	}
	// As a person does (F5): the browser loads the page's address again,
	// sending a form again if that is what the page came from.
	before := b.LoadCount()
	if err := b.Eval(`location.reload(), true`, new(bool)); err != nil {
		return w.uiFail(b, "reloading the page: %v", err)
	}
	return w.waitNewDocument(b, before, "reloading the page")
}

func pageNoLongerShowsToken(ctx context.Context) error {
	w := theWorld(ctx)
	b := w.current
	t, err := w.shownToken()
	if err != nil {
		return err
	}
	var html string
	if err := b.Run(chromedp.OuterHTML("html", &html, chromedp.ByQuery)); err != nil {
		return w.uiFail(b, "%v", err)
	}
	if strings.Contains(html, t.raw) {
		return w.uiFail(b, "the page shows the token again")
	}
	if ok, _ := exists(b, `[data-testid="new-token-value"]`); ok {
		return w.uiFail(b, "the reloaded page shows a new token: was the form sent again?")
	}
	return nil
}

func pageListsToken(ctx context.Context) error {
	w := theWorld(ctx)
	b := w.current
	t, err := w.shownToken()
	if err != nil {
		return err
	}
	if err := w.untilTokenListed(b, t.name, true); err != nil {
		return err
	}
	var row string
	if err := b.Eval(fmt.Sprintf(`((%s) || {}).textContent || ""`, fmt.Sprintf(tokenRowJS, t.name)), &row); err != nil {
		return w.uiFail(b, "%v", err)
	}
	row = strings.Join(strings.Fields(row), " ")
	if row == "" {
		return w.uiFail(b, "the page does not list the token %q", t.name)
	}
	if !strings.Contains(row, t.name) || !strings.Contains(row, t.description) {
		return w.uiFail(b, "the page lists the token as %q, without its name and description", row)
	}
	return nil
}

func pageListsExpiry(ctx context.Context, listed string) error {
	w := theWorld(ctx)
	b := w.current
	t, err := w.shownToken()
	if err != nil {
		return err
	}
	var cell struct {
		Found     bool   `json:"found"`
		Text      string `json:"text"`
		ExpiresAt string `json:"expiresAt"`
	}
	if err := w.untilTokenListed(b, t.name, true); err != nil {
		return err
	}
	js := fmt.Sprintf(`(() => { const r = %s; const c = r && r.querySelector('[data-testid="token-expires"]');
		return c ? {found: true, text: c.textContent.trim(), expiresAt: c.getAttribute("data-expires-at") || ""} : {found: false} })()`, fmt.Sprintf(tokenRowJS, t.name))
	if err := b.Eval(js, &cell); err != nil {
		return w.uiFail(b, "%v", err)
	}
	if !cell.Found {
		return w.uiFail(b, "the page lists no expiry for the token %q", t.name)
	}
	if listed == "never" {
		if cell.Text != "Never" || cell.ExpiresAt != "" {
			return w.uiFail(b, "the page lists the token as expiring %q, expected Never", cell.Text)
		}
		return nil
	}
	days := 1
	if listed != "a day after today" {
		fmt.Sscanf(listed, "%d days", &days)
	}
	var ms int64
	if _, err := fmt.Sscan(cell.ExpiresAt, &ms); err != nil {
		return w.uiFail(b, "the token's expiry %q carries no time (data-expires-at)", cell.Text)
	}
	want := t.madeAt.Add(time.Duration(days) * 24 * time.Hour)
	if d := time.UnixMilli(ms).Sub(want); d < -2*time.Minute || d > 2*time.Minute {
		return w.uiFail(b, "the page lists the token as expiring %s (%s), expected about %s", cell.Text, time.UnixMilli(ms).UTC(), want.UTC())
	}
	return nil
}

func pageNoLongerListsToken(ctx context.Context) error {
	w := theWorld(ctx)
	b := w.current
	t, err := w.shownToken()
	if err != nil {
		return err
	}
	return w.untilTokenListed(b, t.name, false)
}

// revokesInPage clicks the token's Revoke, then the confirmation's Revoke
// or its Cancel.
func revokesInPage(ctx context.Context, name, how string) error {
	w := theWorld(ctx)
	b, err := w.startRevoking(name)
	if err != nil {
		return err
	}
	if strings.HasPrefix(how, "starts") {
		return w.click(b, `[data-testid="cancel-revoke-button"]`, "the confirmation's Cancel")
	}
	return w.click(b, `[data-testid="confirm-revoke-button"]`, "the confirmation's Revoke")
}

func opensTokenForm(ctx context.Context, name string) error {
	_, err := theWorld(ctx).openTokenForm(name)
	return err
}

func formNamesNoUser(ctx context.Context) error {
	w := theWorld(ctx)
	b := w.current
	var fields []struct {
		Name  string `json:"name"`
		Type  string `json:"type"`
		Value string `json:"value"`
	}
	if err := b.Eval(formFieldsJS, &fields); err != nil {
		return w.uiFail(b, "%v", err)
	}
	if len(fields) == 0 {
		return w.uiFail(b, "the token form has no fields")
	}
	for _, f := range fields {
		if !slices.Contains(tokenFormFields, f.Name) {
			return w.uiFail(b, "the token form has a field %q (%s) beyond name, description and expiry", f.Name, f.Type)
		}
		if strings.Contains(f.Value, "urn:li:corpuser:") {
			return w.uiFail(b, "the token form's field %q holds a user: %q", f.Name, f.Value)
		}
	}
	return nil
}

func sendsFormNamingOther(ctx context.Context, name, other string) error {
	w := theWorld(ctx)
	o := w.person(other)
	if err := w.ensureUser(o); err != nil {
		return err
	}
	before, err := w.tokensFor(o)
	if err != nil {
		return err
	}
	w.tokenBaseline = &tokenBaseline{actor: o, ids: before}
	w.undo("revoke tokens made for "+o.name, func() error { return w.revokeNewTokens(&tokenBaseline{actor: o, ids: before}) })
	b, err := w.openTokenForm(name)
	if err != nil {
		return err
	}
	t, err := w.fillTokenForm(b, w.person(name), "")
	if err != nil {
		return err
	}
	// Every name a form might use for whom a token is for.
	if err := addFields(b, map[string]string{"actorUrn": o.urn, "actor_urn": o.urn, "actor": o.urn, "user": o.urn, "userUrn": o.urn, "username": o.username}); err != nil {
		return w.uiFail(b, "adding fields to the form: %v", err)
	}
	if err := w.click(b, `[data-testid="create-token-button"]`, "Create"); err != nil {
		return err
	}
	return w.readShownToken(b, t)
}

func sendsFormWithBadCSRF(ctx context.Context, name, how, other string) error {
	w := theWorld(ctx)
	p := w.person(name)
	before, err := w.tokensFor(p)
	if err != nil {
		return err
	}
	w.tokenBaseline = &tokenBaseline{actor: p, ids: before}
	w.undo("revoke tokens made for "+p.name, func() error { return w.revokeNewTokens(&tokenBaseline{actor: p, ids: before}) })
	csrf := ""
	if other != "" {
		ob, err := w.openTokenForm(other)
		if err != nil {
			return err
		}
		if err := ob.Eval(`(document.querySelector('[data-testid="create-token-form"] [name="csrf_token"]') || {}).value || ""`, &csrf); err != nil {
			return w.uiFail(ob, "%v", err)
		}
		if csrf == "" {
			return w.uiFail(ob, "%s's token form carries no CSRF token (a field named csrf_token)", other)
		}
		w.secret(csrf)
	}
	b, err := w.openTokenForm(name)
	if err != nil {
		return err
	}
	if _, err := w.fillTokenForm(b, p, ""); err != nil {
		return err
	}
	js := `document.querySelectorAll('[data-testid="create-token-form"] [name="csrf_token"]').forEach(e => e.remove()), true`
	if csrf != "" {
		js = fmt.Sprintf(`document.querySelectorAll('[data-testid="create-token-form"] [name="csrf_token"]').forEach(e => e.value = %q), true`, csrf)
	}
	if err := b.Eval(js, new(bool)); err != nil {
		return w.uiFail(b, "changing the form's CSRF token: %v", err)
	}
	return w.click(b, `[data-testid="create-token-button"]`, "Create")
}

func pageRefusesForm(ctx context.Context) error {
	w := theWorld(ctx)
	b := w.current
	status, err := b.Status()
	if err != nil {
		return w.uiFail(b, "%v", err)
	}
	if status != http.StatusForbidden && status != http.StatusBadRequest {
		return w.uiFail(b, "the form was answered with status %d, expected a refusal (403 or 400)", status)
	}
	if ok, _ := exists(b, `[data-testid="new-token-value"]`); ok {
		return w.uiFail(b, "the page refused the form but shows a new token")
	}
	return nil
}
