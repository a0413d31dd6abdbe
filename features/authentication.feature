@auth
Feature: Authentication
  With authentication on, GraphQL, GraphiQL, the entity paths and ingestion serve only
  requests that carry a valid personal access token, on the metadata service and on the
  frontend alike. Any other request is answered 401 before anything runs: the answer
  challenges the caller for a Bearer token and says 401 in a JSON body; when a token was
  sent, the challenge also says the token is invalid. A token is invalid when it is
  malformed, signed with another key or not signed at all, expired, or revoked, and when
  its user is suspended.

  @smoke
  Scenario Outline: A request without a token is refused at <surface>
    When a request without a token reaches <surface>
    Then the request is refused with 401 and a Bearer challenge

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

  # "An expired token" is made by the suite and so is also signed with another key:
  # a token the service made cannot be made to expire within a run. The reference's
  # unit tests cover expiry of a token signed with the real key.
  @core
  Scenario Outline: A request with <a bad token> is refused
    Given Ann holds a personal access token
    When Ann asks who she is with <a bad token>
    Then the request is refused with 401 and a Bearer challenge
    And the challenge says the token is invalid

    Examples:
      | a bad token                     |
      | a malformed token               |
      | a token signed with another key |
      | an unsigned token               |
      | an expired token                |

  @core
  Scenario: A revoked token is refused on the next request
    Given Ann holds a personal access token
    And Ann's token works
    When the administrator revokes Ann's token
    Then Ann's token is refused

  @core
  Scenario: The token of a suspended user is refused
    Given Ann holds a personal access token
    And Ann's token works
    When the administrator suspends Ann
    Then Ann's token is refused

  @core
  Scenario: The service says token authentication is on
    Given Ann holds a personal access token
    When Ann reads the app configuration
    Then token authentication is reported as enabled
