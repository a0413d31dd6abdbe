package model

// CorpUserProperties is DataHub's CorpUserProperties. It is written by hand
// rather than generated so that it can carry the manager's URN to the
// manager resolver, which loads the manager only when a query asks for it
// (a user may be their own manager's manager: loading eagerly would not end).
type CorpUserProperties struct {
	Active      bool    `json:"active"`
	DisplayName *string `json:"displayName,omitempty"`
	Email       *string `json:"email,omitempty"`
	Title       *string `json:"title,omitempty"`
	FullName    *string `json:"fullName,omitempty"`
	// ManagerURN is corpUserInfo's managerUrn; "" when there is none.
	ManagerURN string `json:"-"`
}
