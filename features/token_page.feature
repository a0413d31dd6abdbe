@ui @cap:ui @cap:tokens @cap:native-users
Feature: The access tokens page
  People manage their personal access tokens in a browser, on Settings > Access Tokens: a
  "Manage Access Tokens" page with a "Personal Access Tokens" section. Its "Generate new
  token" button is enabled for someone who may make tokens for themself (who holds
  GENERATE_PERSONAL_ACCESS_TOKENS or MANAGE_ACCESS_TOKENS), and disabled, with a message, for
  anyone else and whenever token authentication is disabled. A token made in the page is
  shown once, works at once as the person who made it, and is listed with its expiry;
  revoking it in the page, once confirmed, ends it on the very next request. The page only
  ever makes tokens for the person signed in, and refuses a form that does not carry the
  page's own CSRF token. Where the service refuses to make tokens that never expire, the
  page does not offer Never, as DataHub's page does not, and the row that would choose it
  is reported as skipped.

  These scenarios drive a real browser (Chromium) through the frontend's pages, found by
  their data-testid attributes. A target whose frontend does not serve those pages reports
  them as skipped; CATALOGSPEC_DISABLE=ui (or CATALOGSPEC_TAGS='~@ui') turns them off.

  @id:page-01 @must @core
  Scenario: Someone holding GENERATE_PERSONAL_ACCESS_TOKENS finds the button enabled
    Given Ann is granted GENERATE_PERSONAL_ACCESS_TOKENS
    And Ann is signed in to the frontend in a browser
    When Ann opens the access tokens page
    Then the page is titled "Manage Access Tokens" with a "Personal Access Tokens" section
    And the "Generate new token" button is enabled

  @id:page-02 @should @core @exclusive
  Scenario: Someone holding only MANAGE_ACCESS_TOKENS finds the button enabled
    Given no policy lets every user generate personal access tokens
    And Ann is granted MANAGE_ACCESS_TOKENS
    And Ann is signed in to the frontend in a browser
    When Ann opens the access tokens page
    Then the "Generate new token" button is enabled

  @id:page-03 @must @core @exclusive
  Scenario: Someone holding MANAGE_POLICIES but neither token privilege finds the button disabled
    Given no policy lets every user generate personal access tokens
    And Ann is granted MANAGE_POLICIES
    And Ann is signed in to the frontend in a browser
    When Ann opens the access tokens page
    Then the "Generate new token" button is disabled
    And the page says that Ann may not generate tokens

  @id:page-04 @must @core @cap:auth-disabled-frontend
  Scenario: With token authentication disabled the button is disabled and the page says so
    Given the service runs with authentication disabled
    And Ann is signed in to the frontend in a browser
    When Ann opens the access tokens page
    Then the "Generate new token" button is disabled
    And the page says that token based authentication is disabled

  @id:page-05 @must @core
  Scenario: A token generated in the page is shown once and works as the person who made it
    Given Ann is signed in to the frontend in a browser
    When Ann generates a token in the page
    Then the page shows the new token, with a warning that it will not be shown again
    And the token shown works on the GraphQL endpoint as Ann

  @id:page-06 @must @core
  Scenario: A generated token is not shown again and is listed with its name and description
    Given Ann is signed in to the frontend in a browser
    And Ann has generated a token in the page
    When Ann reloads the page
    Then the page no longer shows the token
    And the page lists the token with its name and description

  @id:page-07 @must @core
  Scenario Outline: A token generated in the page to last <choice> expires as chosen
    Given Ann is signed in to the frontend in a browser
    When Ann generates a token in the page that lasts <choice>
    Then the token shown is described as expiring <length> after it was made
    And the page lists the token as expiring <listed>

    Examples:
      | choice    | length   | listed               |
      | 1 day     | 1 day    | a day after today    |
      | 3 months  | 90 days  | 90 days after today  |
      | Never     | never    | never                |

  @id:page-08 @must @core
  Scenario: Revoking a token in the page ends it on the very next request
    Given Ann is signed in to the frontend in a browser
    And Ann has generated a token in the page
    When Ann revokes the token in the page, confirming it
    Then the token shown is refused
    And the page no longer lists the token

  @id:page-09 @must @core
  Scenario: Revoking asks first, and a revocation not confirmed leaves the token working
    Given Ann is signed in to the frontend in a browser
    And Ann has generated a token in the page
    When Ann starts revoking the token in the page and cancels
    Then the token shown works on the GraphQL endpoint as Ann
    And the page lists the token with its name and description

  @id:page-10 @must @core
  Scenario: The page offers no way to make a token for someone else
    Given Ann is signed in to the frontend in a browser
    And Bob is a user
    When Ann opens the form that makes a token
    Then the form has no field that names a user

  @id:page-11 @should @core
  Scenario: A token form naming someone else still makes a token only for the person signed in
    Given Ann is signed in to the frontend in a browser
    And Bob is a user
    When Ann's browser sends the token form with a field naming Bob as the token's user
    Then no token was created for Bob
    And the token shown works on the GraphQL endpoint as Ann

  @id:page-12 @must @core
  Scenario: Signed out, the page sends the browser to sign in
    When someone who is not signed in opens the access tokens page in a browser
    Then the browser is at the sign-in page

  @id:page-13 @should @core
  Scenario Outline: A token form <sent> is refused and makes no token
    Given Ann is signed in to the frontend in a browser
    And Bob is signed in to the frontend in another browser
    When Ann's browser sends the token form <sent>
    Then the page refuses the form
    And no token was created for Ann

    Examples:
      | sent                             |
      | without its CSRF token           |
      | with the CSRF token of Bob's page |
