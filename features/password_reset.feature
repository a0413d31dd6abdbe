@cap:authentication @cap:native-users
Feature: Password reset tokens
  A native user (one who signed up with a password) sets a new password with a reset token:
  an administrator makes one for them with createNativeUserResetToken, and the user sends it,
  with the new password, to the frontend's /resetNativeUserCredentials, which sets the
  password and signs them in. Making a reset token lets its maker choose another person's
  password, so it needs the platform privilege MANAGE_USER_CREDENTIALS, and no other
  privilege stands in for it. A reset token is made only for a native user: a user who has
  no password (made by ingestion, or signed in elsewhere) gets none, and neither does the
  root user, whose password on DataHub is the frontend's own (user.props), not a native user's. It sets the password of
  its own user only, and only for a day: sent with another user's name, or a day later, it
  changes no one's password. A new reset token replaces the one before.

  Recommended beyond DataHub: a reset token works once. DataHub keeps it after it was used
  (NativeUserService writes the new password beside it), so until it expires anyone who
  sees it can set the password again.

  A new password ends every session the old one opened: whoever learned the old password, or
  took a browser that was signed in with it, is signed out. Personal access tokens are
  credentials of their own, listed and revoked one by one, and stay.

  @id:reset-01 @must @core
  Scenario: Someone holding MANAGE_USER_CREDENTIALS makes a reset token that sets a password
    Given Ann holds a personal access token
    And Ann is granted MANAGE_USER_CREDENTIALS
    And Bob is a user
    When Ann makes a password reset token for Bob
    Then the answer is a reset token with which Bob sets a password and is signed in

  @id:reset-02 @must @core
  Scenario Outline: Without MANAGE_USER_CREDENTIALS, <holding> makes no reset token
    Given Ann holds a personal access token
    And Ann is granted <privilege>
    And Bob is a user
    When Ann makes a password reset token for Bob
    Then Ann is rejected as unauthorized

    Examples:
      | holding                                  | privilege                      |
      | someone who may manage policies          | MANAGE_POLICIES                |
      | someone who may manage every token       | MANAGE_ACCESS_TOKENS           |
      | someone who may make their own tokens    | GENERATE_PERSONAL_ACCESS_TOKENS |

  @id:reset-03 @must @core
  Scenario: A reset token is made only for a user who has a password
    Given Ann is a user known only by her user name
    When the administrator makes a password reset token for Ann
    Then the request is refused and no reset token is given

  @id:reset-04 @must @core
  Scenario Outline: A new password sent with <sent> is set for no one
    Given Ann has a password
    And Bob has a password
    And the administrator has made a password reset token for Ann
    When someone sets a new password with <sent>
    Then the reset is refused
    And Ann and Bob still sign in with their own passwords, and no one with the new one

    Examples:
      | sent                                           |
      | Ann's reset token and Bob's username           |
      | a reset token no one made and Ann's username   |
      | Ann's reset token altered and Ann's username   |

  @id:reset-05 @must @core
  Scenario: A new reset token replaces the one before
    Given Ann has a password
    And the administrator has made a password reset token for Ann
    And the administrator has made another password reset token for Ann
    When Ann sets a new password with the first reset token
    Then the reset is refused
    And Ann still signs in with her own password, and no one with the new one
    And the second reset token sets Ann's password

  @id:reset-06 @must @core @cap:clock-frontend
  Scenario: A reset token no longer works a day after it was made
    Given Ann has a password
    And the administrator has made a password reset token for Ann
    When a day and an hour later Ann sets a new password with the reset token
    Then the reset is refused
    And Ann still signs in with her own password, and no one with the new one

  @id:reset-07 @should @core
  Scenario: A reset token works only once
    Given Ann has a password
    And the administrator has made a password reset token for Ann
    And Ann has set a new password with the reset token
    When someone sets another new password with the same reset token
    Then the reset is refused
    And Ann signs in with the password she set, and no one with the other one

  @id:reset-08 @should @core
  Scenario: A new password set with a reset token ends the sessions the old one opened
    Given Ann has a password
    When Ann sets a new password with a new reset token
    Then the session Ann held before is refused on the GraphQL endpoint
    And the session the new password opened is answered as Ann

  @id:reset-09 @must @core
  Scenario: No reset token is made for the root user
    When the administrator makes a password reset token for the root user
    Then the request is refused and no reset token is given
