@read-only
Feature: What a read-only audit checks
  An operator can check a deployment people use without writing to it: `catalogspec audit`
  runs only the scenarios tagged @read-only (these, and a few of other features), with the
  two base URLs and at most one user's personal access token, any user's, and no
  administrator's. Each scenario reads, or sends a request a working service refuses. Where
  a refused request would write if the service were broken (a tag creation sent by GET, an
  ingestion with a forged token), what it would write is harmless (a tag or a dataset's
  description, with a catalogspec name of its own) and the scenario looks for it, so that a
  broken service shows.

  Ada is the user whose token the operator gave (CATALOGSPEC_TOKEN); a full run given none
  uses the administrator's. A scenario that needs her token is skipped without it, and says
  so. The suite forges the malformed, foreign-key and unsigned tokens itself; an expired and
  a revoked token of the service are checked when the operator gives them
  (CATALOGSPEC_EXPIRED_TOKEN, CATALOGSPEC_REVOKED_TOKEN), and skipped otherwise.

  With authentication on, every path that serves data (GraphQL, GraphiQL, the entity paths,
  DataHub's SDK paths over Rest.li and OpenAPI, ingestion), on the metadata service and on
  the frontend, refuses a request that carries no valid token with 401 and runs nothing;
  X-DataHub-Actor names no one. GraphQL is served by POST only. `me` names its caller alike
  on every GraphQL endpoint, and says they may manage all access tokens, or policies,
  exactly when the service lets them list every user's tokens, or the policies. The schema
  can be introspected; a query may nest 50 levels deep and no deeper, a question about the
  schema 20. Recommended beyond DataHub: JSON answers carry X-Content-Type-Options:
  nosniff (OWASP Secure Headers); a frontend that serves its own sign-in page forbids other
  sites to frame it (OWASP Clickjacking Defense), keeps the cookies it sets from scripts and
  from other sites' requests (OWASP Session Management), and never sends the browser to
  another site after signing in, however a link names that site (OWASP Unvalidated
  Redirects and Forwards).

  @id:audit-01 @must @smoke @cap:authentication
  Scenario Outline: Every path of both tiers refuses <credentials>, and nothing is written
    When a request with <credentials> reaches every path of both tiers
    Then every path refuses it as unauthenticated, and nothing it would write is there

    Examples:
      | credentials                                       |
      | no token                                          |
      | no token, naming the root user in X-DataHub-Actor |
      | a malformed token                                 |
      | a token signed with another key                   |
      | an unsigned token                                 |
      | an expired token                                  |
      | a revoked token                                   |

  @id:audit-02 @must @core @cap:authentication
  Scenario Outline: Ada's valid token sent <how> is refused
    Given Ada holds the token the operator gave
    When Ada asks who she is, sending her token <how>
    Then the request is refused as unauthenticated

    Examples:
      | how                   |
      | with the Basic scheme |
      | without a scheme      |

  @id:audit-03 @must @core @cap:authentication
  Scenario Outline: Ada naming another user in X-DataHub-Actor still acts as herself through the <tier>
    Given Ada holds the token the operator gave
    When Ada asks who she is through the <tier>, naming another user in X-DataHub-Actor
    Then the answer names Ada as the signed-in user

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:audit-04 @must @core @cap:authentication
  Scenario: The service tells Ada that token authentication is on
    Given Ada holds the token the operator gave
    When Ada reads the app configuration
    Then token authentication is reported as enabled

  @id:audit-05 @must @core @cap:graphql
  Scenario Outline: A query Ada sends by <method> is refused
    Given Ada holds the token the operator gave
    When Ada sends a query to the GraphQL endpoint by <method>
    Then the request is refused, not answered

    Examples:
      | method |
      | GET    |
      | PUT    |
      | PATCH  |
      | DELETE |

  @id:audit-06 @must @core @cap:graphql @cap:tags
  Scenario Outline: A tag creation sent by GET to <the endpoint> makes no tag
    Given Ada holds the token the operator gave
    When Ada sends the creation of a tag to <the endpoint> by GET
    Then the request is refused, not answered
    And the tag does not exist

    Examples:
      | the endpoint                         |
      | the GraphQL endpoint                 |
      | the frontend's GraphQL endpoint      |
      | the frontend's v2 GraphQL endpoint   |

  @id:audit-07 @must @core @cap:graphql
  Scenario Outline: `me` names Ada through the frontend's <endpoint> endpoint as the metadata service does
    Given Ada holds the token the operator gave
    When Ada asks who she is through the frontend's <endpoint> endpoint
    Then the answer names Ada with the privileges the metadata service says she has

    Examples:
      | endpoint   |
      | GraphQL    |
      | v2 GraphQL |

  @id:audit-08 @must @core @cap:graphql @cap:tokens
  Scenario: Ada may list every user's access tokens exactly when `me` says she may manage them
    Given Ada holds the token the operator gave
    When Ada lists every user's access tokens
    Then she is answered exactly when `me` says she may manage all access tokens

  @id:audit-09 @must @core @cap:graphql @cap:policies
  Scenario: Ada may list the policies exactly when `me` says she may manage them
    Given Ada holds the token the operator gave
    When Ada lists every policy
    Then she is answered exactly when `me` says she may manage policies

  @id:audit-10 @must @core @cap:graphql
  Scenario: Ada may ask the service to describe its schema
    Given Ada holds the token the operator gave
    When Ada asks the GraphQL endpoint to describe its schema
    Then the answer describes a schema whose queries include me and tag

  @id:audit-11 @must @core @cap:graphql
  Scenario: Ada's query nested 50 levels deep is answered
    Given Ada holds the token the operator gave
    When Ada asks for her manager, her manager's manager and so on, in a query nested 50 levels deep
    Then the answer has data and no errors

  @id:audit-12 @must @core @cap:graphql
  Scenario: Ada's query nested 51 levels deep is refused
    Given Ada holds the token the operator gave
    When Ada asks for her manager, her manager's manager and so on, in a query nested 51 levels deep
    Then the answer is a GraphQL error, without data

  @id:audit-13 @must @core @cap:graphql
  Scenario: Ada's question about the schema nested 20 levels deep is answered
    Given Ada holds the token the operator gave
    When Ada asks for a type nested 20 levels deep
    Then the answer has data and no errors

  @id:audit-14 @should @core @cap:graphql
  Scenario: Ada's question about the schema nested 21 levels deep is refused
    Given Ada holds the token the operator gave
    When Ada asks for a type nested 21 levels deep
    Then the answer is a GraphQL error, without data

  @id:audit-15 @should @core @cap:graphql
  Scenario Outline: A JSON answer of the <tier> tells the browser not to guess its type
    Given Ada holds the token the operator gave
    When Ada asks the <tier> who she is
    Then the answer is marked nosniff

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:audit-16 @should @core @cap:authentication
  Scenario: The sign-in page cannot be framed by another site
    Given the frontend serves its own sign-in page
    When someone opens the sign-in page
    Then the page forbids other sites to frame it

  @id:audit-17 @should @core @cap:authentication
  Scenario: The cookies the sign-in page sets are kept from scripts and from other sites' requests
    Given the frontend serves its own sign-in page
    When someone opens the sign-in page
    Then every cookie the page sets is kept from scripts and from other sites' requests

  @id:audit-18 @should @core @cap:authentication
  Scenario Outline: A sign-in link that leads to another site, <how>, opens a sign-in page that stays on the site
    Given the frontend serves its own sign-in page
    When someone opens a sign-in link that leads to another site, <how>
    Then the sign-in page would send the browser to a page of the frontend

    Examples:
      | how                                       |
      | named with its scheme                     |
      | named without its scheme                  |
      | named after a backslash                   |
      | named after a dot segment and a backslash |
      | named after a tab                         |
