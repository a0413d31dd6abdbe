@cap:authentication
Feature: Who am I
  `me` names the signed-in user and says which platform privileges they hold, as the
  policies grant them: generating personal access tokens, managing all access tokens,
  managing policies, creating tags and managing tags. Every user may generate personal
  access tokens through a policy the service starts with. The health check and the
  server configuration answer without a token.

  @id:me-01 @must @core
  Scenario Outline: Someone granted <privilege> is told so, and of nothing more
    Given Ann holds a personal access token
    And Ann is granted <privilege>
    When Ann asks who she is
    Then the answer says Ann holds exactly <privileges>

    Examples:
      | privilege                       | privileges                                           |
      | GENERATE_PERSONAL_ACCESS_TOKENS | GENERATE_PERSONAL_ACCESS_TOKENS                      |
      | MANAGE_ACCESS_TOKENS            | GENERATE_PERSONAL_ACCESS_TOKENS and MANAGE_ACCESS_TOKENS |
      | MANAGE_POLICIES                 | GENERATE_PERSONAL_ACCESS_TOKENS and MANAGE_POLICIES  |
      | CREATE_TAGS                     | GENERATE_PERSONAL_ACCESS_TOKENS and CREATE_TAGS      |
      | MANAGE_TAGS                     | GENERATE_PERSONAL_ACCESS_TOKENS and MANAGE_TAGS      |

  @id:me-02 @must @smoke
  Scenario: The health check answers without a token
    When someone without a token checks the service's health
    Then the service says it is healthy
