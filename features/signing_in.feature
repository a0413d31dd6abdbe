@ui @cap:ui @cap:authentication @cap:native-users
Feature: Signing in to the frontend
  People sign in to the frontend in a browser with their username and password. A wrong
  password, or a username no one has, signs no one in, and the page does not say which of the
  two was wrong. A signed-in browser holds a session: the frontend sends it on to the
  metadata service, where it is authorized exactly like that user's personal access token,
  with that user's privileges as they are at that moment. Signing out ends the session: the
  cookie the browser held no longer works anywhere. Wrong passwords for one user are
  throttled: after a few, the frontend stops checking that user's password for a while,
  says so with status 429 and when to try again, and lets everyone else sign in. The sign-in
  form carries a CSRF token of its own, bound to the browser that opened the page, so that
  no other site can sign a browser in as someone else: a form sent without it, with one
  made up, with another browser's, or with one from a signed-in page, signs no one in.

  The suite gives each user it signs in a password first, as DataHub does for native users:
  the administrator (holding MANAGE_USER_CREDENTIALS) asks for an invite token with
  getInviteToken, and the user signs up with it at the frontend's /signUp, choosing a
  password. The pages and the frontend's sign-in API (/logIn, /logOut) share one session:
  the cookies either one gives work for both.

  @id:signin-01 @must @smoke
  Scenario: Someone signs in with their username and password
    Given Ann has a password
    When Ann signs in to the frontend in a browser
    Then the page shows that Ann is signed in
    And Ann's browser is answered on the GraphQL endpoint as Ann
    And Ann's browser reads her own user through the frontend's entity path

  @id:signin-02 @must @core
  Scenario Outline: <attempt> signs no one in and does not say which part was wrong
    Given Ann has a password
    When someone signs in to the frontend in a browser with <attempt>
    Then the sign-in page says the username or the password is wrong
    And the browser is not signed in

    Examples:
      | attempt                             |
      | Ann's username and a wrong password |
      | a username no one has               |
      | Ann's username and no password      |

  @id:signin-03 @must @core
  Scenario: A session is held to its user's privileges
    Given Ann is signed in to the frontend in a browser
    When Ann's browser creates a tag through the frontend's GraphQL endpoint
    Then Ann's browser is rejected as unauthorized
    And the tag does not exist

  @id:signin-04 @must @core
  Scenario: A session carries its user's privileges as they are granted
    Given Ann is signed in to the frontend in a browser
    And Ann is granted CREATE_TAGS
    When Ann's browser creates a tag through the frontend's GraphQL endpoint
    Then the answer is the URN of the tag
    And the tag exists with its name and description

  @id:signin-05 @should @core
  Scenario: Signing out ends the session everywhere
    Given Ann is signed in to the frontend in a browser
    And the cookies of Ann's browser are kept
    When Ann signs out in the page
    Then the browser is at the sign-in page
    And the kept cookies are refused on the GraphQL endpoint

  @id:signin-06 @should @core
  Scenario: The browser's cookies cannot be read by scripts or sent by other sites
    When Ann signs in to the frontend in a browser
    Then no cookie of the frontend can be read by the page's scripts
    And every cookie of the frontend is kept from other sites' requests

  @id:signin-07 @must @core
  Scenario: The session of a suspended user no longer works
    Given Ann is signed in to the frontend in a browser
    When the administrator suspends Ann
    Then Ann's browser is refused on the GraphQL endpoint

  @id:signin-08 @must @core
  Scenario: A session from the sign-in API opens the pages, and the API signs the page out
    Given Ann is signed in at the frontend's sign-in API
    When Ann's browser holds the cookies of that session
    Then the page shows that Ann is signed in
    And after Ann signs out at the frontend's sign-out API in the browser, the access tokens page sends the browser to sign in

  @id:signin-09 @should @core
  Scenario Outline: Signing in from a link never sends the browser to another site, <how>
    Given Ann has a password
    When Ann signs in from a sign-in link that leads to another site, <how>
    Then the sign-in sends the browser to a page of the frontend

    Examples:
      | how                                       |
      | named with its scheme                     |
      | named without its scheme                  |
      | named after a backslash                   |
      | named after a dot segment and a backslash |
      | named after a tab                         |

  @id:signin-10 @should @core
  Scenario Outline: A signed-in browser that follows a sign-in link stays on the site, <how>
    Given Ann is signed in to the frontend in a browser
    When Ann's browser follows a sign-in link that leads to another site, <how>
    Then every request the page made went to the service's own origin
    And the page shows that Ann is signed in

    Examples:
      | how                                       |
      | named with its scheme                     |
      | named without its scheme                  |
      | named after a backslash                   |
      | named after a dot segment and a backslash |
      | named after a tab                         |

  @id:signin-11 @should @core
  Scenario: Wrong passwords for one user are throttled, and the frontend says when to try again
    Given Ann has a password
    And Bob has a password
    When someone signs in as Ann with wrong passwords until the frontend stops checking them
    Then the frontend answers status 429 and says when to try again
    And Ann's right password is refused the same way, and signs no one in
    And Bob signs in with his password

  @id:signin-12 @should @core
  Scenario Outline: A sign-in form sent <how> is refused and signs no one in
    Given Ann has a password
    When Ann's sign-in form is sent <how>
    Then the sign-in form is refused, and no one is signed in

    Examples:
      | how                                                    |
      | without its CSRF token                                 |
      | with a CSRF token made up                              |
      | with the CSRF token of another browser's sign-in page  |
      | with the CSRF token of Bob's signed-in page            |
