@cap:authentication
Feature: Password reset tokens
  A native user sets a password with a reset token: an administrator makes one for them with
  createNativeUserResetToken, and the user sends it, with the new password, to the frontend's
  /resetNativeUserCredentials, which sets the password and signs them in. Making a reset token
  lets its maker choose another person's password, so it needs the platform privilege
  MANAGE_USER_CREDENTIALS, and no other privilege stands in for it. A new password ends
  every session the old one opened: whoever learned the old password, or took a browser
  that was signed in with it, is signed out. Personal access tokens are credentials of
  their own, listed and revoked one by one, and stay.

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

  @id:reset-03 @should @core
  Scenario: A new password set with a reset token ends the sessions the old one opened
    Given Ann has a password
    When Ann sets a new password with a new reset token
    Then the session Ann held before is refused on the GraphQL endpoint
    And the session the new password opened is answered as Ann
