@cap:authentication
Feature: Who am I
  `me` names the signed-in user and says what the platform lets them do: generate personal
  access tokens, manage all access tokens, manage policies, create tags, manage tags and
  manage user credentials (make password reset tokens), as the policies grant the
  privileges behind them. It says what a privilege allows, not only which privilege was
  granted: MANAGE_TAGS lets its holder create tags too, so `me` says so (DataHub's
  MeResolver reports createTags from AuthorizationUtils.canCreateTags, which is
  CREATE_TAGS or MANAGE_TAGS). Every user may generate personal access tokens through a
  policy the service starts with. The health check and the server configuration answer
  without a token. `corpUser(urn)` looks a user up by URN; a user ingested with nothing
  but a user name may sign in with a token. With authentication disabled, a suspended
  user named in X-DataHub-Actor is refused.
  Recommended beyond DataHub (RFC 9110, section 15.5.1): looking a user up by a URN that
  is not a user's is refused as a bad request.

  @id:me-01 @must @core
  Scenario Outline: Someone granted <privilege> is told what it allows, and nothing more
    Given Ann holds a personal access token
    And Ann is granted <privilege>
    When Ann asks who she is
    Then the answer says Ann may <what>, and nothing more

    Examples:
      | privilege                       | what                                                         |
      | GENERATE_PERSONAL_ACCESS_TOKENS | generate personal access tokens                              |
      | MANAGE_ACCESS_TOKENS            | generate personal access tokens and manage all access tokens |
      | MANAGE_POLICIES                 | generate personal access tokens and manage policies          |
      | CREATE_TAGS                     | generate personal access tokens and create tags              |
      | MANAGE_TAGS                     | generate personal access tokens, create tags and manage tags |

  @id:me-02 @must @smoke @read-only
  Scenario: The health check answers without a token
    When someone without a token checks the service's health
    Then the service says it is healthy

  @id:me-03 @must @core
  Scenario: A user is looked up by URN
    Given Ann is a user
    When the administrator looks up Ann by her URN
    Then the answer is Ann's user, with her display name and email

  @id:me-04 @must @core
  Scenario: Looking up a user by a malformed URN is refused
    When the administrator looks up a user by a malformed URN
    Then the lookup is refused

  @id:me-05 @must @core
  Scenario: Someone known only by a user name signs in with a token
    Given Ann is a user known only by her user name
    And Ann holds a personal access token
    When Ann asks who she is
    Then the answer names Ann as the signed-in user

  @id:me-06 @must @core @cap:auth-disabled
  Scenario: A suspended user named in X-DataHub-Actor is refused
    Given the service runs with authentication disabled
    And Ann is a user
    And the administrator suspends Ann
    Then someone naming Ann in X-DataHub-Actor is rejected as unauthorized

  @id:me-07 @should @core
  Scenario: Looking up a user by a tag's URN is refused as a bad request
    Given a tag exists
    When the administrator looks up a user by the tag's URN
    Then the answer is a GraphQL error saying the request is bad

  @id:me-08 @must @core
  Scenario: A user who was never suspended is not shown as suspended
    Given Ann is a user
    When the administrator looks up Ann by her URN
    Then the answer shows Ann's status as ACTIVE

  @id:me-09 @must @core
  Scenario: A suspended user is shown as suspended
    Given Ann is a user
    And the administrator suspends Ann
    When the administrator looks up Ann by her URN
    Then the answer shows Ann's status as SUSPENDED

  @id:me-10 @must @core
  Scenario: Looking up a user no one has made shows no user
    When the administrator looks up a user no one has made
    Then the answer shows no such user, without an error
