@cap:sign-in @cap:native-users
Feature: Signing in through the frontend's sign-in API
  DataHub's web app and its own smoke tests sign in without a page: they post the username
  and password as JSON to the frontend's /logIn, keep the cookies it answers with (one of
  them, "actor", names the user), and send those cookies with every later request to the
  frontend's GraphQL endpoint (/api/v2/graphql) and its entity paths (/api/gms/...), where
  the session is answered exactly as that user, with that user's privileges. A GET of
  /logOut signs the client out. A wrong password, a username no one has, a user who has
  no password and a user who was removed are all refused alike, with DataHub's 400 and its
  message "Invalid Credentials". A suspended or removed user's session no longer works.
  The session cookie holds a session and nothing else: a personal access token put in its
  place is no session (DataHub's frontend reads only the session its own sign-in signed).

  The users in these scenarios are native users, as DataHub has them: the administrator
  invites them with an invite token and they sign up at the frontend's /signUp, choosing
  a password.

  Recommended beyond DataHub (OWASP Session Management Cheat Sheet): signing out ends the
  session on the server, so that the cookies held before no longer work anywhere; and a
  suspended user is refused at sign-in, as a wrong password is, instead of being given a
  session that no request honours. And (OWASP Authentication Cheat Sheet) wrong passwords
  for one user are throttled: after a few, the frontend checks no password for that user
  for a while, answers 429 and when to try again, and lets everyone else sign in. A new
  password set with the user's reset token lifts that user's throttle (OWASP Forgot Password
  Cheat Sheet), and nothing else does: a reset refused, or another user's reset, leaves it
  as it was. Reached over HTTPS (through whatever terminates TLS in front of the frontend),
  every cookie the frontend sets is Secure, so that no browser sends it over plain HTTP, and
  every answer carries Strict-Transport-Security, so that the browser comes back over HTTPS
  alone (RFC 6265, RFC 6797).

  @id:signapi-01 @must @smoke
  Scenario: Someone signs in at the sign-in API with their username and password
    Given Ann has a password
    When Ann signs in at the frontend's sign-in API
    Then the sign-in is accepted with cookies, one of them naming Ann
    And Ann's session is answered as Ann on the frontend's v2 GraphQL endpoint
    And Ann's session reads her own user through the frontend's entity path

  @id:signapi-02 @must @core
  Scenario Outline: At the sign-in API, <attempt> signs no one in
    Given Ann has a password
    When someone signs in at the frontend's sign-in API with <attempt>
    Then the sign-in is refused as DataHub refuses wrong credentials
    And the client that tried is not signed in

    Examples:
      | attempt                             |
      | Ann's username and a wrong password |
      | a username no one has               |
      | Ann's username and no password      |
      | Ann's username in capitals          |

  @id:signapi-03 @must @core
  Scenario: A sign-in without a username is refused, saying so
    When someone signs in at the frontend's sign-in API without a username
    Then the sign-in is refused, saying the user name must not be empty
    And the client that tried is not signed in

  @id:signapi-04 @must @core
  Scenario Outline: A user who has no password cannot sign in with <password>
    Given Ann is a user known only by her user name
    When someone signs in at the frontend's sign-in API as Ann with <password>
    Then the sign-in is refused as DataHub refuses wrong credentials
    And the client that tried is not signed in

    Examples:
      | password          |
      | any password      |
      | an empty password |

  @id:signapi-05 @must @core
  Scenario: A session from the sign-in API is held to its user's privileges
    Given Ann is signed in at the frontend's sign-in API
    When Ann's session creates a tag through the frontend's v2 GraphQL endpoint
    Then Ann's session is rejected as unauthorized
    And the tag does not exist

  @id:signapi-06 @must @core
  Scenario: Signing out at the sign-out API ends the session for the client
    Given Ann is signed in at the frontend's sign-in API
    When Ann signs out at the frontend's sign-out API
    Then Ann's client is no longer signed in

  @id:signapi-07 @should @core
  Scenario: Signing out at the sign-out API ends the session everywhere
    Given Ann is signed in at the frontend's sign-in API
    And the cookies of Ann's session are kept
    When Ann signs out at the frontend's sign-out API
    Then the kept cookies are refused on the frontend's v2 GraphQL endpoint

  @id:signapi-08 @must @core
  Scenario: A suspended user gets no session that works
    Given Ann has a password
    And the administrator suspends Ann
    When Ann signs in at the frontend's sign-in API
    Then Ann gets no session that works

  @id:signapi-09 @should @core
  Scenario: A suspended user is refused at sign-in as a wrong password is
    Given Ann has a password
    And the administrator suspends Ann
    When Ann signs in at the frontend's sign-in API
    Then the sign-in is refused as DataHub refuses wrong credentials
    And the client that tried is not signed in

  @id:signapi-10 @must @core
  Scenario: A suspended user's session from the sign-in API no longer works
    Given Ann is signed in at the frontend's sign-in API
    When the administrator suspends Ann
    Then Ann's session is refused on the frontend's v2 GraphQL endpoint

  @id:signapi-11 @must @core @cap:user-management
  Scenario: A removed user cannot sign in
    Given Ann has a password
    And the administrator has removed Ann
    When Ann signs in at the frontend's sign-in API
    Then the sign-in is refused as DataHub refuses wrong credentials
    And the client that tried is not signed in

  @id:signapi-12 @must @core @cap:user-management
  Scenario: A removed user's session from the sign-in API no longer works
    Given Ann is signed in at the frontend's sign-in API
    When the administrator removes Ann
    Then Ann's session is refused on the frontend's v2 GraphQL endpoint

  @id:signapi-13 @should @core
  Scenario: Wrong passwords for one user at the sign-in API are throttled, and the frontend says when to try again
    Given Ann has a password
    And Bob has a password
    When someone signs in at the sign-in API as Ann with wrong passwords until the frontend stops checking them
    Then the frontend answers status 429 and says when to try again
    And at the sign-in API, Ann's right password is refused the same way, and signs no one in
    And Bob signs in at the sign-in API with his password

  @id:signapi-14 @must @core
  Scenario: A personal access token sent as the session cookie is no session
    Given Ann holds a personal access token
    When someone sends Ann's personal access token as the session cookie to the frontend's v2 GraphQL endpoint
    Then the request is refused as unauthenticated

  @id:signapi-15 @should @core
  Scenario: A new password set with a reset token lifts the throttle on the user's sign-ins
    Given Ann has a password
    And someone signs in at the sign-in API as Ann with wrong passwords until the frontend stops checking them
    When Ann sets a new password with a new reset token
    Then Ann signs in at the sign-in API with her password

  @id:signapi-16 @should @core
  Scenario Outline: The throttle on Ann's sign-ins stays when <reset>
    Given Ann has a password
    And Bob has a password
    And the administrator has made a password reset token for Ann
    And someone signs in at the sign-in API as Ann with wrong passwords until the frontend stops checking them
    When <reset>
    Then at the sign-in API, Ann's right password is refused the same way, and signs no one in

    Examples:
      | reset                                                                          |
      | someone sets a new password with a reset token no one made and Ann's username |
      | Bob sets a new password with a new reset token                                 |

  @id:signapi-17 @should @core @cap:https-frontend
  Scenario Outline: Over HTTPS, when <something happens>, every cookie is Secure and the answer keeps the browser to HTTPS
    Given Ann has a password
    When over HTTPS, <something happens>
    Then every cookie the frontend set is Secure
    And the answer tells the browser to come back over HTTPS alone

    Examples:
      | something happens                                                    |
      | Ann signs in at the sign-in API                                      |
      | Ann's session asks who she is at the frontend's v2 GraphQL endpoint |
      | Carl signs up with the invite token                                  |
      | Ann sets a new password with a reset token                           |
      | someone opens the sign-in page                                       |
