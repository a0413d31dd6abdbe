@cap:graphql
Feature: How the HTTP tiers answer what they cannot serve
  The details of the HTTP answers that clients and operators rely on. The metadata service
  says in /config that it can take stateful ingestion, as DataHub's does, and answers JSON
  as JSON. Recommended beyond DataHub: a request that cannot be served is answered with
  the precise 4xx status (RFC 9110, section 15.5) and a JSON body that says why, never an
  empty 200; the GraphQL endpoint checks a request's parameters as the GraphQL over HTTP
  draft asks (variables and extensions are objects, operationName a string, the query a
  non-blank string: otherwise 400), and answers a document that does not validate with
  200 for application/json and 400 for application/graphql-response+json; JSON answers
  carry X-Content-Type-Options: nosniff (OWASP secure headers); a refusal of a request
  that sent no credentials does not call them invalid (RFC 6750, section 3.1).

  @id:httpx-01 @must @core @read-only @cap:ingestion
  Scenario: The metadata service says it can take stateful ingestion
    When someone without a token reads the server configuration
    Then the configuration says the server is capable of stateful ingestion

  @id:httpx-02 @should @core @cap:ingestion
  Scenario Outline: An ingestion request <flaw> is refused with status <status>
    When the administrator sends an ingestion request <flaw>
    Then the answer has status <status>
    And the answer explains itself in JSON with its status and a message

    Examples:
      | flaw                                                 | status |
      | whose body is not JSON                               | 400    |
      | whose body has no proposal                           | 400    |
      | for an action that is not served                     | 400    |
      | whose body is larger than DataHub's 16,000,000 bytes | 413    |

  @id:httpx-03 @should @core
  Scenario Outline: A GraphQL request whose <parameter> is refused with status 400
    When the administrator sends a GraphQL request whose <parameter>
    Then the answer has status 400
    And the answer explains itself in JSON with its status and a message

    Examples:
      | parameter                 |
      | query is blank            |
      | variables are a list      |
      | operationName is a number |
      | extensions are a string   |
      | query key appears twice   |

  @id:httpx-04 @must @core
  Scenario: A GraphQL request with an operation name, extensions and null variables is answered
    When the administrator sends a GraphQL request with an operation name, extensions and null variables
    Then the answer has status 200
    And the answer says the caller is the administrator

  @id:httpx-05 @should @core
  Scenario Outline: A document that does not validate is answered with status <status> to a client that accepts <media type>
    When the administrator sends a document that does not validate, accepting <media type>
    Then the answer has status <status>
    And the answer is a GraphQL error saying the request is bad

    Examples:
      | media type                        | status |
      | application/json                  | 200    |
      | application/graphql-response+json | 400    |

  @id:httpx-06 @should @core
  Scenario Outline: A path the <tier> does not serve is not found, in JSON
    When the administrator asks the <tier> for a path it does not serve
    Then the answer has status 404
    And the answer explains itself in JSON with its status and a message

    Examples:
      | tier             |
      | metadata service |
      | frontend         |

  @id:httpx-07 @must @core @cap:entity-paths
  Scenario: An entity is read as JSON
    When the administrator reads their own user through the entity path
    Then the answer is application/json

  @id:httpx-08 @should @core @cap:entity-paths
  Scenario: A JSON answer tells the browser not to guess its type
    When the administrator reads their own user through the entity path
    Then the answer is marked nosniff

  @id:httpx-09 @should @core @read-only @cap:authentication
  Scenario: A refusal of a request without credentials does not call them invalid
    When a request without a token reaches the GraphQL endpoint
    Then the challenge does not say the token is invalid

  @id:httpx-10 @should @core @cap:entity-paths
  Scenario Outline: The entity path refuses <a malformed URN> as a bad request
    When the administrator reads an entity by <a malformed URN> through the entity path
    Then the answer has status 400
    And the answer explains itself in JSON with its status and a message

    Examples:
      | a malformed URN                    |
      | a URN without an id                |
      | a URN without an entity type       |
      | a URN whose entity type has a dash |
      | a URN with a tab in its id         |
      | a URN of 1025 characters           |
      | a URN with a NUL in its id         |
      | a URN that is not valid UTF-8      |

  @id:httpx-11 @should @core @cap:entity-paths
  Scenario: An entity of a type the service does not know is not found
    When the administrator reads an entity of a type the service does not know through the entity path
    Then the answer has status 404
    And the answer explains itself in JSON with its status and a message

  @id:httpx-12 @should @core @cap:ingestion
  Scenario Outline: A proposal <flaw> is refused as a bad request, and nothing is stored
    When the administrator ingests a proposal <flaw>
    Then the answer has status 400
    And the answer explains itself in JSON with its status and a message

    Examples:
      | flaw                                                   |
      | that writes a policy                                   |
      | that writes an access token                            |
      | whose aspect is not one of the entity's                |
      | whose aspect value is null                             |
      | whose aspect value holds a NUL character               |
      | whose aspect value holds a NUL character in a key      |
      | whose aspect value holds a lone surrogate              |
      | whose aspect name is not an identifier                 |
      | for a dataset URN that is not (platform, name, origin) |
      | whose aspect name is 200 letters long                  |

  @id:httpx-13 @should @core
  Scenario: A GraphQL request larger than a MiB sent to the frontend is refused with status 413
    When the administrator sends a GraphQL request larger than a MiB to the frontend
    Then the answer has status 413
    And the answer explains itself in JSON with its status and a message
