@cap:authentication
Feature: Authentication
  With authentication on, GraphQL, GraphiQL, the entity paths and ingestion serve only
  requests that carry a valid personal access token as "Authorization: Bearer <token>",
  on the metadata service and on the frontend alike. Any other request is refused with
  401 before anything runs. A token is invalid when it is malformed, signed with another
  key or not signed at all, expired, or revoked; a token whose user is suspended is
  refused too. A client cannot choose whom it acts as: with authentication on, the
  X-DataHub-Actor header is ignored.

  DataHub answers the 401 with a body of its own. Answering it as RFC 6750 asks, with a
  WWW-Authenticate challenge for a Bearer token (saying error="invalid_token" when a bad
  token was sent) and a JSON body saying 401, is recommended.

  @id:auth-01 @must @smoke @read-only
  Scenario Outline: A request without a token is refused at <surface>
    When a request without a token reaches <surface>
    Then the request is refused as unauthenticated

    Examples:
      | surface                            |
      | the GraphQL endpoint               |
      | the frontend's GraphQL endpoint    |
      | the frontend's v2 GraphQL endpoint |
      | the GraphiQL page                  |
      | the frontend's GraphiQL page       |
      | the metadata service's entity path |
      | the frontend's entity path         |
      | the ingestion endpoint             |
      | the frontend's ingestion endpoint  |

  @id:auth-02 @should @core @read-only
  Scenario Outline: A refusal at <surface> challenges the caller for a Bearer token
    When a request without a token reaches <surface>
    Then the answer challenges the caller for a Bearer token

    Examples:
      | surface                            |
      | the GraphQL endpoint               |
      | the frontend's GraphQL endpoint    |
      | the frontend's v2 GraphQL endpoint |
      | the GraphiQL page                  |
      | the frontend's GraphiQL page       |
      | the metadata service's entity path |
      | the frontend's entity path         |
      | the ingestion endpoint             |
      | the frontend's ingestion endpoint  |

  @id:auth-03 @must @core
  Scenario Outline: A request with <a bad token> is refused
    Given Ann holds a personal access token
    When Ann asks who she is with <a bad token>
    Then the request is refused as unauthenticated

    Examples:
      | a bad token                     |
      | a malformed token               |
      | a token signed with another key |
      | an unsigned token               |

  @id:auth-04 @should @core
  Scenario Outline: A refusal of <a bad token> says the token is invalid
    Given Ann holds a personal access token
    When Ann asks who she is with <a bad token>
    Then the answer challenges the caller for a Bearer token
    And the challenge says the token is invalid

    Examples:
      | a bad token                     |
      | a malformed token               |
      | a token signed with another key |
      | an unsigned token               |

  @id:auth-05 @must @core
  Scenario Outline: A valid token sent <how> is refused
    Given Ann holds a personal access token
    When Ann asks who she is, sending her token <how>
    Then the request is refused as unauthenticated

    Examples:
      | how                     |
      | with the Basic scheme   |
      | with the Token scheme   |
      | without a scheme        |

  @id:auth-06 @must @core
  Scenario: The Bearer scheme may be written in lower case
    Given Ann holds a personal access token
    When Ann asks who she is, sending her token with the bearer scheme in lower case
    Then the answer names Ann as the signed-in user

  @id:auth-07 @must @core
  Scenario: A revoked token is refused on the next request
    Given Ann holds a personal access token
    And Ann's token works
    When the administrator revokes Ann's token
    Then Ann's token is refused

  @id:auth-08 @must @core
  Scenario: The token of a suspended user is refused
    Given Ann holds a personal access token
    And Ann's token works
    When the administrator suspends Ann
    Then Ann's token is refused

  @id:auth-09 @must @core
  Scenario Outline: A client naming someone else in X-DataHub-Actor still acts as itself through the <tier>
    Given Ann holds a personal access token
    When Ann asks who she is through the <tier>, naming the administrator in X-DataHub-Actor
    Then the answer names Ann as the signed-in user

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:auth-10 @must @core
  Scenario: A client naming an administrator in X-DataHub-Actor gains no privilege
    Given Ann holds a personal access token
    When Ann creates a tag, naming the administrator in X-DataHub-Actor
    Then Ann is rejected as unauthorized
    And the tag does not exist

  @id:auth-11 @must @core
  Scenario: The service says token authentication is on
    Given Ann holds a personal access token
    When Ann reads the app configuration
    Then token authentication is reported as enabled
